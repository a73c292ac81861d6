// Wire types of /api/daemons/ (docs/architecture.md, REST API; issue 8).

export type DaemonState = "ONLINE" | "OFFLINE" | "UNSEEN";

export interface DaemonRunningJob {
  id: number;
  name: string;
  /** its RESERVED or RUNNING instances on this daemon */
  instances: number;
}

export interface Daemon {
  id: number;
  name: string;
  state: DaemonState;
  last_contact: string | null;
  ip: string | null;
  max_instances: number;
  active_instances: number;
  ports: [number, number];
  version: number;
  sandbox: string;
  labels: Record<string, string>;
  /** the owner's ceilings: max_mem_mb, max_cpu_seconds, disk_max_size_mb, ... */
  limits: Record<string, number>;
  /** "always" | "idle" | "windows", "" when the daemon did not say */
  availability: string;
  available: boolean;
  unavailable_reason: string;
  load: number | null;
  rtt_ms: number | null;
  drained: boolean;
  revoked: boolean;
  running_jobs: DaemonRunningJob[];
}

/** POST /api/daemons/ and POST /api/daemons/<id>/rotate-key/: the key is shown this once. */
export interface DaemonWithKey {
  daemon: Daemon;
  key: string;
  config: string;
}

export interface DaemonCreateInput {
  name: string;
  max_instances: number;
  port_lo: number;
  port_hi: number;
  /** The course it serves (one you instruct); null: the shared pool (site operators only). */
  course: number | null;
}

export interface BlacklistEntry {
  id: number;
  address: string;
  note: string;
  created_at: string;
}

export interface Blacklist {
  /** the instructors' entries (deletable) */
  entries: BlacklistEntry[];
  /** what daemons get: SPLAYLAB_BLACKLIST, the controller's own addresses, then the entries */
  addresses: string[];
}

/** GET /api/daemons/reachability/: whether `src` reached `dst`'s advertised address (issue 24). */
export interface Reachability {
  src: number;
  src_name: string;
  dst: number;
  dst_name: string;
  /** "direct": src's nodes can connect to dst's at its address; "none": they cannot (see `via`) */
  status: "direct" | "none";
  tcp: boolean;
  /** the UDP echo answered too */
  udp: boolean;
  tcp_ms: number | null;
  /** why not: TCP's, else UDP's; "" when both answered */
  error: string;
  /** dst's probe listener, ip:port */
  address: string;
  measured_at: string;
  /** how src's nodes reach dst's: directly, through the node relay, over loopback (a daemon's
   * own nodes behind a router), or not at all */
  via: "direct" | "relay" | "loopback" | "none";
}
