import { useState } from "react";
import { ErrorMessage } from "@/components/ui/error-message";
import { Spinner } from "@/components/ui/spinner";
import type { DaemonWithKey } from "@/types/daemons";
import { useDaemons } from "../api/get-daemons";
import { BlacklistEditor } from "./blacklist-editor";
import { CreateDaemonForm, type CourseChoice } from "./create-daemon-form";
import { DaemonsTable } from "./daemons-table";
import { KeyReveal } from "./key-reveal";
import { ReachabilityGrid } from "./reachability-grid";

/** Instructors: their courses' daemons (site operators: every one), live (polled), with their
 * actions; create one for a course they instruct; the blacklist. */
export function DaemonsDashboard({ courses, operator }: { courses: CourseChoice[]; operator: boolean }) {
  const daemons = useDaemons();
  const [revealed, setRevealed] = useState<{ result: DaemonWithKey; what: "created" | "rotated" } | null>(null);

  if (daemons.isPending) return <Spinner label="Loading daemons…" />;
  if (daemons.isError) return <ErrorMessage error={daemons.error} title="Cannot load the daemons." />;
  const online = daemons.data.filter((d) => d.state === "ONLINE");
  const used = online.reduce((n, d) => n + d.active_instances, 0);
  const max = online.reduce((n, d) => n + d.max_instances, 0);
  return (
    <div className="daemons-page">
      <div className="job-title-row">
        <h1>Daemons</h1>
        <span className="muted" data-testid="daemons-summary">
          {online.length} of {daemons.data.length} online · {used} / {max} slots used
        </span>
      </div>
      <DaemonsTable daemons={daemons.data} onKey={(result) => setRevealed({ result, what: "rotated" })} />
      <ReachabilityGrid daemons={daemons.data} />
      {revealed && <KeyReveal result={revealed.result} what={revealed.what} onDismiss={() => setRevealed(null)} />}
      <div className="daemons-forms">
        <CreateDaemonForm courses={courses} operator={operator} onCreated={(result) => setRevealed({ result, what: "created" })} />
        <BlacklistEditor />
      </div>
    </div>
  );
}
