// Pure helpers for the instructors' daemon dashboard.
import type { User } from "@/types/api";
import type { Daemon, DaemonCreateInput } from "@/types/daemons";

/** The API's ManagesDaemons: instructors (and staff, whom `me` does not tell apart). */
export function managesDaemons(user: User | undefined): boolean {
  return user?.manages_daemons ?? user?.role === "instructor";
}

/** "just now", "12 s ago", "3 min ago", "2 h ago", "4 d ago"; "never" without a contact. */
export function relativeTime(iso: string | null, now: number = Date.now()): string {
  if (!iso) return "never";
  const then = new Date(iso).getTime();
  if (Number.isNaN(then)) return iso;
  const s = Math.max(0, Math.round((now - then) / 1000));
  if (s < 2) return "just now";
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ago`;
  return `${Math.floor(s / 86400)} d ago`;
}

/** "3 / 8" used / max slots. */
export function capacityText(d: Pick<Daemon, "active_instances" | "max_instances">): string {
  return `${d.active_instances} / ${d.max_instances}`;
}

/** Whether the daemon takes new jobs now, and if not why (the scheduler's own order). */
export function takesJobs(d: Daemon): { ok: boolean; why: string } {
  if (d.revoked) return { ok: false, why: "key revoked" };
  if (d.state !== "ONLINE") return { ok: false, why: d.state.toLowerCase() };
  if (d.drained) return { ok: false, why: "drained" };
  if (!d.available) return { ok: false, why: d.unavailable_reason || "unavailable" };
  return { ok: true, why: "" };
}

/** "idle · unavailable: owner active" / "always · available" / "unknown". */
export function availabilityText(d: Pick<Daemon, "availability" | "available" | "unavailable_reason">): string {
  const policy = d.availability || "unknown policy";
  if (d.available) return `${policy} · available`;
  return `${policy} · unavailable${d.unavailable_reason ? `: ${d.unavailable_reason}` : ""}`;
}

export function loadText(d: Pick<Daemon, "load" | "rtt_ms">): string {
  const load = d.load == null ? "—" : d.load.toFixed(2);
  return d.rtt_ms == null ? load : `${load} · ${d.rtt_ms.toFixed(1)} ms`;
}

export function labelsText(labels: Record<string, string>): string {
  return Object.entries(labels)
    .map(([k, v]) => `${k}=${v}`)
    .join(", ");
}

/** Form fields → the create payload, or the first problem (the server checks again). */
export function parseCreateForm(form: {
  name: string;
  maxInstances: string;
  ports: string;
  /** A course id, or "" for the shared pool. */
  course?: string;
}): DaemonCreateInput | string {
  const name = form.name.trim();
  if (!/^[A-Za-z0-9_.-]+$/.test(name)) return "Name: letters, digits, _ . - only.";
  const max = Number(form.maxInstances);
  if (!Number.isInteger(max) || max < 1) return "Max instances: a whole number ≥ 1.";
  const m = /^\s*(\d+)\s*-\s*(\d+)\s*$/.exec(form.ports);
  if (!m) return "Ports: LO-HI, e.g. 20000-20999.";
  const lo = Number(m[1]);
  const hi = Number(m[2]);
  if (lo < 1 || hi > 65535 || lo > hi) return "Ports: 1 ≤ LO ≤ HI ≤ 65535.";
  if (hi - lo + 1 < max) return `Ports: ${max} instances need ${max} ports; ${lo}-${hi} has ${hi - lo + 1}.`;
  return { name, max_instances: max, port_lo: lo, port_hi: hi, course: form.course ? Number(form.course) : null };
}
