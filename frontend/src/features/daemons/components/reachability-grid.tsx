import { ErrorMessage, errorText } from "@/components/ui/error-message";
import type { Daemon } from "@/types/daemons";
import { useProbeReachability, useReachability } from "../api/reachability";
import { relativeTime } from "../lib/daemon-view";
import { reachGrid, reachSummary } from "../lib/reachability-view";

/** Who can reach whom (issue 24): a row per daemon that probed, a column per daemon it tried.
 * A job is placed only on daemons whose measured pairs all reach; "?" is not measured yet. */
export function ReachabilityGrid({ daemons }: { daemons: Daemon[] }) {
  const pairs = useReachability();
  const probe = useProbeReachability();
  const grid = reachGrid(daemons, pairs.data ?? [], (iso) => relativeTime(iso));
  return (
    <section className="card" aria-label="Reachability" data-testid="reachability">
      <div className="job-title-row">
        <h2>Reachability</h2>
        <span className="muted" data-testid="reachability-summary">
          {reachSummary(pairs.data ?? [])}
        </span>
        <button type="button" disabled={probe.isPending} onClick={() => probe.mutate()}>
          Probe again
        </button>
      </div>
      <p className="muted">
        Whether nodes on the row&apos;s daemon can connect to the column&apos;s (its advertised address, probed over
        TCP and UDP; the diagonal: a daemon&apos;s nodes to each other). A daemon behind a home router reaches out
        but is not reached: jobs are not spread over a pair marked none, and a daemon that cannot reach itself
        takes 1-node jobs only.
      </p>
      {pairs.isError && <ErrorMessage error={pairs.error} title="Cannot load reachability." />}
      {probe.error && (
        <p className="form-error" role="alert">
          {errorText(probe.error)}
        </p>
      )}
      {grid.names.length > 1 ? (
        <table className="reach-grid">
          <thead>
            <tr>
              <th scope="col">from \ to</th>
              {grid.names.map((d) => (
                <th key={d.id} scope="col">
                  {d.name}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {grid.rows.map((from) => (
              <tr key={from.id}>
                <th scope="row">{from.name}</th>
                {from.cells.map((cell) => (
                  <td key={cell.to} className={`reach-${cell.kind}`} title={cell.title} data-testid={`reach-${from.name}-${cell.to}`}>
                    {cell.text}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p className="muted">Fewer than two daemons online: nothing to measure.</p>
      )}
    </section>
  );
}
