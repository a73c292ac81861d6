import { ErrorMessage } from "@/components/ui/error-message";
import { useMe } from "@/features/auth/api/get-me";
import { DaemonsDashboard } from "@/features/daemons/components/daemons-dashboard";
import { managesDaemons } from "@/features/daemons/lib/daemon-view";

/** /daemons: the instructors' dashboard (the API answers 403 to everyone else anyway). */
export function DaemonsRoute() {
  const me = useMe();
  if (!managesDaemons(me.data)) {
    return (
      <div className="narrow">
        <ErrorMessage error={new Error("Only instructors manage daemons.")} />
      </div>
    );
  }
  return <DaemonsDashboard />;
}
