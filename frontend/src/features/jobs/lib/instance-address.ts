import type { Instance } from "@/types/api";

/** What the instances table shows: ip:port, the node's job.me (on a one-host lab each node has a
 * loopback address of its own, docs/decisions.md "One address per node"); the port alone for
 * instances recorded before addresses were; "—" before a port is known. */
export function instanceAddress(instance: Pick<Instance, "ip" | "port">): string {
  if (instance.port == null) return "—";
  return instance.ip ? `${instance.ip}:${instance.port}` : String(instance.port);
}
