import { useQueryClient } from "@tanstack/react-query";
import { NavLink, useLocation, useNavigate } from "react-router";
import { UserMenu } from "@/features/auth/components/user-menu";
import { useCourses } from "@/features/courses/api/get-courses";
import { staffCourses } from "@/features/courses/lib/roles";
import { managesDaemons } from "@/features/daemons/lib/daemon-view";
import type { User } from "@/types/api";

export function AppHeader({ user }: { user: User }) {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  // Gradebook: for whoever is an instructor or TA of some course (roles are per course).
  const courses = useCourses();
  const gradesCourses = staffCourses(courses.data);
  const { pathname } = useLocation();
  const inGradebook = /^\/(gradebook|courses\/\d+\/gradebook)/.test(pathname);
  const onLoggedOut = () => {
    queryClient.clear();
    navigate("/login", { replace: true });
  };
  return (
    <header className="app-header">
      <NavLink to="/" className="brand">
        SplayLab
      </NavLink>
      <nav aria-label="Main">
        <NavLink to="/" end>
          Workspace
        </NavLink>
        <NavLink to="/jobs">Jobs</NavLink>
        <NavLink to="/scenarios">Scenarios</NavLink>
        <NavLink to="/reference">SPLAY API</NavLink>
        <NavLink
          to="/courses"
          className={({ isActive }) => ((isActive && !inGradebook) || pathname.startsWith("/submissions/") ? "active" : "")}
        >
          Courses
        </NavLink>
        {gradesCourses.length > 0 && (
          <NavLink
            to={gradesCourses.length === 1 ? `/courses/${gradesCourses[0]!.id}/gradebook` : "/gradebook"}
            className={inGradebook ? "active" : ""}
          >
            Gradebook
          </NavLink>
        )}
        {managesDaemons(user) && <NavLink to="/daemons">Daemons</NavLink>}
        <NavLink to="/token">API token</NavLink>
      </nav>
      <UserMenu user={user} onLoggedOut={onLoggedOut} />
    </header>
  );
}
