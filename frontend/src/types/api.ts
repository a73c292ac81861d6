// Wire types from docs/architecture.md (REST API and /ws/jobs/<id>/).

export type Role = string; // e.g. "student", "ta", "instructor"

export interface User {
  id: number;
  username: string;
  role: Role;
  /** Instructors and staff: the daemons dashboard (GET /api/auth/me/). */
  manages_daemons?: boolean;
  /** A site operator: every daemon, the shared pool and the blacklist. */
  operator?: boolean;
}

export const JOB_STATES = [
  "QUEUED",
  "REGISTERING",
  "RUNNING",
  "ENDED",
  "KILLED",
  "FAILED",
  "NO_RESOURCES",
] as const;
export type JobState = (typeof JOB_STATES)[number];

export const TERMINAL_JOB_STATES: readonly JobState[] = ["ENDED", "KILLED", "FAILED", "NO_RESOURCES"];

/** LEFT: a churn job's node that is down (by its scenario, or crashed) with a later join planned;
 * it keeps its slot meanwhile. */
export type InstanceState = "RESERVED" | "RUNNING" | "LEFT" | "ENDED" | "FAILED" | "KILLED" | "LOST";

export interface Instance {
  node: number;
  daemon: number | string | null;
  /** The node's own address (its job.me.ip); null for instances recorded before addresses were. */
  ip?: string | null;
  port: number | null;
  state: InstanceState;
  exit_reason: string | null;
  /** A spare (keep population) started in place of this position; null otherwise. */
  plays?: number | null;
}

/** A job's churn (docs/churn.md): its scenario, if any, and the keep-population mode. */
export interface JobChurn {
  /** The library scenario's name; "" for a scenario given as text (or none, with keep_population). */
  name: string;
  /** A node that dies on its own is replaced by a spare. */
  keep_population: boolean;
  /** Positions the scenario uses: nodes 1..positions. */
  positions: number;
  /** Nodes positions+1..positions+spares, started only to replace a dead node. */
  spares: number;
  /** Wall-clock epoch seconds (as log and metric `t`) of the scenario's t = 0; null until the job starts. */
  epoch: number | null;
}

/** live: on the daemons; sim: every node in one process on a virtual clock (docs/simulation.md). */
export type RunMode = "live" | "sim";

/** A simulated job's progress, republished about once a second while it runs. */
export interface JobProgress {
  /** Virtual seconds reached. */
  virtual_t: number;
  events: number;
  events_per_s: number;
  nodes_started: number;
}

export interface Job {
  id: number;
  name: string;
  owner: number | string;
  state: JobState;
  reason: string | null;
  error_line: number | null;
  nodes: number;
  duration: number;
  filename: string;
  code?: string;
  /** The emulated network, e.g. "king, loss 1%" ("lan" when none). */
  network?: string;
  /** First 8 hex digits of the sha256 of the job's code: tells runs of the same code apart. */
  code_version?: string;
  created_at: string;
  started_at: string | null;
  ended_at: string | null;
  instances?: Instance[];
  /** null: every node runs for the whole job. */
  churn?: JobChurn | null;
  /** "sim": simulated; its duration is in virtual seconds. */
  mode?: RunMode;
  /** A simulated run's seed (default 1): same code, seed and scenario, same results. */
  seed?: number | null;
  /** The assignment whose harness ran with the code ("Title (course)"), "" for none. */
  harness_of?: string;
  /** {} until the simulator reports (always {} for a live job). */
  progress?: JobProgress | Record<string, never>;
}

export type LogLevel = "debug" | "info" | "warning" | "error" | "print" | "metric";
export const LOG_LEVELS: readonly LogLevel[] = ["debug", "info", "warning", "error", "print", "metric"];

export interface LogLine {
  id: number;
  node: number;
  seq: number;
  t: number; // unix seconds (float)
  level: LogLevel;
  text: string;
}

/** Lines the server did not send to this live view (its socket was too far behind): every
 * stored line of `node` with after_id < id < before_id (seqs from_seq..to_seq). The page
 * fetches them from the REST log (backend logs/outbox.py). */
export interface SkippedGap {
  node: number;
  after_id: number;
  before_id: number;
  from_seq: number;
  to_seq: number;
}

export interface LogPage {
  lines: LogLine[];
  next_after: number | null;
}

export interface WorkspaceFile {
  path: string;
  content: string;
}

export interface WorkspaceSummary {
  id: number;
  name: string;
}

export interface Workspace extends WorkspaceSummary {
  files: WorkspaceFile[];
}

export type MetricKind = "observe" | "count";
export type MetricFields = Record<string, string | number | boolean>;

/** Records of one metric from one node (`metrics.observe` / `metrics.count`), stored compactly:
 * t (epoch seconds, stamped by the daemon), value and fields are parallel arrays; fields is
 * null when no record of the chunk had fields. Ids increase; a chunk may come twice (live and
 * from history). */
export interface MetricChunk {
  id: number;
  /** The node of each sample: a chunk holds one daemon batch, several nodes. */
  node: number[];
  name: string;
  kind: MetricKind;
  t: number[];
  value: number[];
  fields: (MetricFields | null)[] | null;
}

/** GET /api/jobs/<id>/metrics/chunks/?after=&limit=&name= */
export interface MetricChunkPage {
  chunks: MetricChunk[];
  next_after: number;
}

/** Log-bucketed histogram: positive bin i holds values in (gamma^(i-1), gamma^i]; a negative
 * value v is counted in bin i of -v. Pairs are [bin index, count], sorted by index. */
export interface MetricHistogram {
  gamma: number;
  positive: [number, number][];
  negative: [number, number][];
  zero: number;
}

export interface MetricNodeCounter {
  node: number;
  count: number;
  sum: number;
  last: number;
}

export interface MetricSeriesSummary {
  name: string;
  kind: MetricKind;
  count: number;
  sum: number;
  min: number | null;
  max: number | null;
  histogram: MetricHistogram;
  nodes: MetricNodeCounter[];
  /** Histograms of small integer fields (e.g. hops): [value, count] pairs. */
  fields: Record<string, [number, number][]>;
}

/** GET /api/jobs/<id>/metrics/: the controller's incremental aggregate of a run. */
export interface MetricSummary {
  job: number;
  /** e.g. "job #12 · code 3f2a91bc · transit-stub" */
  label: string;
  series: MetricSeriesSummary[];
}

/** A list endpoint may answer a bare array or a DRF page; both are accepted. */
export type ListResponse<T> = T[] | { results: T[]; count?: number; next?: string | null };

export function listItems<T>(data: ListResponse<T>): T[] {
  return Array.isArray(data) ? data : data.results;
}

/** Browser websocket messages on /ws/jobs/<id>/. */
export type JobSocketMessage =
  | { type: "job.state"; job: Partial<Job> & { id: number } }
  | { type: "log.lines"; lines: LogLine[] }
  | { type: "log.skipped"; skipped: number; gaps: SkippedGap[] }
  | { type: "metric.chunks"; chunks: MetricChunk[] }
  | { type: "churn.events"; events: ChurnEvent[] };

/** A churn scenario of the library (docs/churn.md): GET/POST /api/scenarios/, GET/PUT/DELETE /api/scenarios/<id>/. */
export interface Scenario {
  id: number;
  name: string;
  description: string;
  text: string;
  owner: string;
  updated_at: string;
}

/** POST /api/scenarios/ and PUT /api/scenarios/<id>/ (instructors and TAs); a 400 says
 * {"text": ["line 1, column 6: …"]} or {"name": [...]}. */
export interface ScenarioInput {
  name: string;
  description?: string;
  text: string;
}

/** A script in SPLAY's churn language, a SPLAY trace or a Failure Trace Archive event trace. */
export type ChurnKind = "script" | "trace" | "fta";

/** column is 1-based; 0: the whole line. */
export interface ChurnError {
  line: number;
  column: number;
  message: string;
}

/** POST /api/scenarios/preview/ {text, seed?} when the text has errors (every bad line); kind is
 * absent when the text is too large to read. */
export interface ChurnPreviewErrors {
  kind?: ChurnKind;
  errors: ChurnError[];
}

/** POST /api/scenarios/preview/ when the text is fine: the SPLAY paper's figure 4. Times in s. */
export interface ChurnPreviewOk {
  kind: ChurnKind;
  errors: [];
  warnings: { line: number; message: string }[];
  /** Distinct nodes the scenario uses. */
  nodes: number;
  duration: number;
  /** The `stop` instant, if any. */
  end: number | null;
  /** [t, population after the joins and leaves at t], one pair per instant (steps). */
  population: [number, number][];
  /** Bin width (s) of `bins`. */
  bin: number;
  /** [bin start, joins, leaves], every bin from 0 to the last with an event. */
  bins: [number, number, number][];
  /** Partitions, heals, loss and latency changes, e.g. {t: 90, text: "at 90s partition 50% 50%"}. */
  network: { t: number; text: string }[];
}

export type ChurnPreview = ChurnPreviewOk | ChurnPreviewErrors;

export const isPreviewOk = (preview: ChurnPreview): preview is ChurnPreviewOk =>
  preview.errors.length === 0 && "population" in preview;

/** POST /api/scenarios/trace/: the trace tools (docs/churn.md) on a scenario's text, in their one
 * order: keep the window [start, end) (s, shifted to 0), speed up, scale the amplitude. A bad
 * setting is a 400 ({"speedup": [...]}, or {"detail": "the window must end after it starts"}). */
export interface ChurnTraceInput {
  text: string;
  /** The script's draws and the amplitude's (default 1). */
  seed?: number;
  start?: number | null;
  end?: number | null;
  speedup?: number | null;
  amplitude?: number | null;
}

/** The scenario as SPLAY's trace format (line k: node k's on/off times). */
export interface ChurnTraceOk {
  kind: ChurnKind;
  errors: [];
  trace: string;
  /** Lines of `trace`. */
  nodes: number;
  /** Network statements (partition, loss, latency) of the script: a trace cannot hold them. */
  dropped_network: number;
}

/** A bad text answers as the preview does: 200 {kind, errors}. */
export type ChurnTrace = ChurnTraceOk | ChurnPreviewErrors;

export const isTraceOk = (trace: ChurnTrace): trace is ChurnTraceOk => trace.errors.length === 0 && "trace" in trace;

/** One up/down transition of a node of a job with churn. Ids increase; an event may come twice
 * (live and from GET /api/jobs/<id>/churn/). */
export interface ChurnEvent {
  id: number;
  node: number;
  /** The position a spare's join replaces; null otherwise. */
  plays: number | null;
  /** leave: the scenario took the node down (SIGKILL, or SIGTERM when graceful); fail: it died
   * on its own (crash, lost daemon), unplanned. */
  event: "join" | "leave" | "fail";
  /** When it happened, seconds since the job's churn epoch (the scenario's t = 0). */
  t: number;
  /** When the scenario planned it (s); null for failures and replacement joins. */
  planned: number | null;
  graceful: boolean;
  /** e.g. "node 3 left (planned at 8 s)". */
  text: string;
}

/** The planned side of a job's churn: POST /api/scenarios/preview/'s answer for its scenario. */
export type ChurnPlan = Omit<ChurnPreviewOk, "kind"> & { kind?: ChurnKind };

/** GET /api/jobs/<id>/churn/?after=<id>: the events after that id (404 when the job's churn is null). */
export interface JobChurnUpdate {
  epoch: number | null;
  /** In id order. */
  events: ChurnEvent[];
}

/** GET /api/jobs/<id>/churn/: the plan too. */
export interface JobChurnHistory extends JobChurnUpdate {
  planned: ChurnPlan;
}

/** GET /api/jobs/<id>/retention/ (docs/architecture.md, "Retention"). */
export interface JobRetention {
  job: number;
  /** Kept this many days after the job ended (0: no age limit). */
  days: number;
  /** MB kept per job, oldest pruned first (0: no limit). */
  max_mb: number;
  /** The course(s) whose rule applies, or "service default". */
  policy_source: string;
  keep: boolean;
  may_keep: boolean;
  /** When the age rule prunes the data; null: not planned. */
  prune_after: string | null;
  log_bytes: number;
  metric_bytes: number;
  trace_bytes: number;
  measured_at: string | null;
  pruned_at: string | null;
  pruned: Record<string, number>;
  /** Why data is gone; empty when nothing was pruned. */
  pruned_note: string;
}
