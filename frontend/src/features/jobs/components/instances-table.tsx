import { StateBadge } from "@/components/ui/state-badge";
import type { Instance } from "@/types/api";
import { instanceAddress } from "../lib/instance-address";

export function InstancesTable({ instances }: { instances: Instance[] | undefined }) {
  const rows = [...(instances ?? [])].sort((a, b) => a.node - b.node);
  return (
    <section className="instances card" aria-label="Instances">
      <h2>Instances</h2>
      <div className="table-scroll">
        <table data-testid="instances-table">
          <thead>
            <tr>
              <th scope="col">Node</th>
              <th scope="col">Daemon</th>
              <th scope="col">Address</th>
              <th scope="col">State</th>
              <th scope="col">Exit reason</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((instance) => (
              <tr key={instance.node} data-node={instance.node}>
                <td>
                  {instance.node}
                  {instance.plays != null && <span className="muted instance-plays" title={`a spare started in place of node ${instance.plays}`}> plays {instance.plays}</span>}
                </td>
                <td>{instance.daemon ?? "—"}</td>
                <td data-testid="instance-address">{instanceAddress(instance)}</td>
                <td>
                  <StateBadge state={instance.state} />
                </td>
                <td>{instance.exit_reason ?? (instance.state === "LEFT" ? "down until its next join" : "")}</td>
              </tr>
            ))}
            {rows.length === 0 && (
              <tr>
                <td colSpan={5} className="muted">
                  No instances yet.
                </td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
    </section>
  );
}
