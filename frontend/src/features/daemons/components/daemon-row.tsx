import { Link } from "react-router";
import { StateBadge } from "@/components/ui/state-badge";
import type { Daemon, DaemonWithKey } from "@/types/daemons";
import { availabilityText, capacityText, labelsText, loadText, relativeTime, takesJobs } from "../lib/daemon-view";
import { DaemonActions } from "./daemon-actions";

interface DaemonRowProps {
  daemon: Daemon;
  now: number;
  onKey: (result: DaemonWithKey) => void;
}

export function DaemonRow({ daemon: d, now, onKey }: DaemonRowProps) {
  const takes = takesJobs(d);
  return (
    <tr data-testid="daemon-row" data-daemon={d.name}>
      <td>
        <strong>{d.name}</strong>
        <div className="muted daemon-sub">
          {d.ip ?? "—"} · ports {d.ports[0]}-{d.ports[1]}
          {d.sandbox && ` · ${d.sandbox}`}
        </div>
      </td>
      <td>
        <StateBadge state={d.state} testId="daemon-state" />
        {d.revoked && <span className="daemon-flag">revoked</span>}
        {d.drained && <span className="daemon-flag" data-testid="daemon-drained">drained</span>}
      </td>
      <td data-testid="daemon-capacity">{capacityText(d)}</td>
      <td>{loadText(d)}</td>
      <td>
        {availabilityText(d)}
        <div className={takes.ok ? "daemon-ok" : "error-text"} data-testid="daemon-takes-jobs">
          {takes.ok ? "takes jobs" : `no new jobs: ${takes.why}`}
        </div>
      </td>
      <td>{labelsText(d.labels) || <span className="muted">—</span>}</td>
      <td title={d.last_contact ?? ""}>{relativeTime(d.last_contact, now)}</td>
      <td>
        {d.running_jobs.length === 0 && <span className="muted">—</span>}
        {d.running_jobs.map((j) => (
          <div key={j.id}>
            <Link to={`/jobs/${j.id}`}>
              #{j.id}
              {j.name && ` ${j.name}`}
            </Link>{" "}
            <span className="muted">×{j.instances}</span>
          </div>
        ))}
      </td>
      <td>
        <DaemonActions daemon={d} onKey={onKey} />
      </td>
    </tr>
  );
}
