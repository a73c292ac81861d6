import { ErrorMessage } from "@/components/ui/error-message";
import { Spinner } from "@/components/ui/spinner";
import { useMe } from "@/features/auth/api/get-me";
import { useCourses } from "@/features/courses/api/get-courses";
import { DaemonsDashboard } from "@/features/daemons/components/daemons-dashboard";
import { managesDaemons } from "@/features/daemons/lib/daemon-view";

/** /daemons: the instructors' dashboard (the API answers 403 to everyone else anyway); a new
 * daemon serves one of the courses the user instructs. */
export function DaemonsRoute() {
  const me = useMe();
  const courses = useCourses();
  if (!managesDaemons(me.data)) {
    return (
      <div className="narrow">
        <ErrorMessage error={new Error("Only instructors manage daemons.")} />
      </div>
    );
  }
  if (courses.isPending) return <Spinner label="Loading your courses…" />;
  const instructed = (courses.data ?? []).filter((c) => c.role === "instructor");
  return <DaemonsDashboard courses={instructed} operator={me.data?.operator ?? false} />;
}
