import { useEffect, useState } from "react";
import type { Daemon, DaemonWithKey } from "@/types/daemons";
import { DaemonRow } from "./daemon-row";

const COLUMNS = ["Daemon", "State", "Used / max", "Load · RTT", "Availability", "Labels", "Last contact", "Running jobs", "Actions"];

export function DaemonsTable({ daemons, onKey }: { daemons: Daemon[]; onKey: (result: DaemonWithKey) => void }) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  return (
    <div className="table-scroll daemons-table">
      <table data-testid="daemons-table">
        <thead>
          <tr>
            {COLUMNS.map((c) => (
              <th key={c} scope="col">
                {c}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {daemons.map((d) => (
            <DaemonRow key={d.id} daemon={d} now={now} onKey={onKey} />
          ))}
          {daemons.length === 0 && (
            <tr>
              <td colSpan={COLUMNS.length} className="muted">
                No daemons yet: create one below.
              </td>
            </tr>
          )}
        </tbody>
      </table>
    </div>
  );
}
