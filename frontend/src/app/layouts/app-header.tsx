import { useQueryClient } from "@tanstack/react-query";
import { NavLink, useNavigate } from "react-router";
import { UserMenu } from "@/features/auth/components/user-menu";
import type { User } from "@/types/api";

export function AppHeader({ user }: { user: User }) {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
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
        <NavLink to="/token">API token</NavLink>
      </nav>
      <UserMenu user={user} onLoggedOut={onLoggedOut} />
    </header>
  );
}
