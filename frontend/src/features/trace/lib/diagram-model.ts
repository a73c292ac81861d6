/**
 * The space-time diagram's model: the runtime's message trace (docs/trace.md, rows as
 * GET /api/jobs/<id>/trace/ gives them) turned into arrows between node lanes.
 *
 * A `call` (or `ucall`) row of node A naming node B is one exchange: a request A → B and, when
 * B answered (outcome ok or error), a reply B → A that reaches A when the call ended (t + dur).
 * The request's arrival is B's matching `serve` row (same function and operation, started
 * within the call, naming A or no one): then the reply leaves B when that serve ended. Without
 * a matching serve (it may be capped, or never happened), the arrival is drawn at the call's
 * midpoint and marked `inferred`. Raw `send`/`sendto` rows are drawn as instant arrows; rows
 * naming an address outside the job (a string peer) have no lane and are only counted.
 */

/** One row: t (seconds since the job start), node, then the runtime's columns. */
export type TraceRow = [
  t: number, node: number, type: string, peer: number | string, name: string, out: number, in_: number,
  outcome: string, op: string, depth: number, dur: number, count: number,
];

export type MessageKind = "request" | "reply" | "raw";

export interface Message {
  from: number;
  to: number;
  /** When it left `from` and reached `to` (seconds since the job start). */
  t0: number;
  t1: number;
  kind: MessageKind;
  /** The row's type: call, ucall, send, sendto. */
  type: string;
  name: string;
  /** Bytes of this message (a request's or a reply's). */
  bytes: number;
  outcome: string;
  op: string;
  depth: number;
  /** Events this arrow stands for (more than 1 past a node's max_events: an aggregate row). */
  count: number;
  /** The arrival is a guess (no serve row matched the call). */
  inferred: boolean;
  /** The exchange it belongs to: the index of its call row in the model's `calls`. */
  call: number;
}

/** A call as the trace records it (one row): what "follow an operation" lists. */
export interface Call {
  t: number;
  from: number;
  to: number | string;
  type: string;
  name: string;
  out: number;
  in_: number;
  outcome: string;
  op: string;
  depth: number;
  dur: number;
}

export interface Operation {
  op: string;
  name: string;
  node: number;
  t: number;
  dur: number;
  outcome: string;
  /** Calls recorded for it, in time order (indexes into `calls`). */
  calls: number[];
}

export interface DiagramModel {
  nodes: number;
  /** Sorted by t0. */
  messages: Message[];
  /** The longest t1 - t0 (visible-range queries look back this far). */
  maxSpan: number;
  calls: Call[];
  ops: Operation[];
  /** Earliest and latest instant of any arrow or operation. */
  start: number;
  end: number;
  /** Rows naming an address outside the job (no lane). */
  external: number;
}

const CALL_TYPES = new Set(["call", "ucall"]);
const SERVE_OF: Record<string, string> = { call: "serve", ucall: "userve" };
const RAW_TYPES = new Set(["send", "sendto"]);
/** Live rows carry each node's own clock: a serve may appear a little before its call. */
const CLOCK_SLACK = 0.25;

interface Serve {
  t: number;
  dur: number;
  peer: number | string;
  op: string;
  out: number;
  used: boolean;
}

const isNode = (peer: number | string, nodes: number): peer is number =>
  typeof peer === "number" && Number.isInteger(peer) && peer >= 1 && peer <= nodes;

/** Lower bound: the first index whose key is >= x. */
function lowerBound<T>(items: T[], x: number, key: (item: T) => number): number {
  let lo = 0;
  let hi = items.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (key(items[mid]!) < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export function buildDiagram(rows: TraceRow[], nodeCount: number): DiagramModel {
  let nodes = nodeCount;
  for (const r of rows) if (r[1] > nodes) nodes = r[1];

  // serves by "node|type|name", in time order, for matching calls to them
  const serves = new Map<string, Serve[]>();
  for (const r of rows) {
    if (r[2] !== "serve" && r[2] !== "userve") continue;
    const key = `${r[1]}|${r[2]}|${r[4]}`;
    let list = serves.get(key);
    if (!list) serves.set(key, (list = []));
    list.push({ t: r[0], dur: r[10], peer: r[3], op: r[8], out: r[5], used: false });
  }
  for (const list of serves.values()) list.sort((a, b) => a.t - b.t);

  const calls: Call[] = [];
  const messages: Message[] = [];
  const opsById = new Map<string, Operation>();
  const opOf = (id: string): Operation => {
    let o = opsById.get(id);
    if (!o) opsById.set(id, (o = { op: id, name: "", node: 0, t: Infinity, dur: 0, outcome: "", calls: [] }));
    return o;
  };
  let external = 0;
  let start = Infinity;
  let end = -Infinity;
  const span = (a: number, b: number) => {
    if (a < start) start = a;
    if (b > end) end = b;
  };

  const ordered = [...rows].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  for (const r of ordered) {
    const [t, node, type, peer, name, out, inb, outcome, op, depth, dur, count] = r;
    if (type === "op") {
      const o = opOf(op);
      Object.assign(o, { name, node, t, dur, outcome });
      span(t, t + dur);
      continue;
    }
    const isCall = CALL_TYPES.has(type);
    if (!isCall && !RAW_TYPES.has(type)) continue;
    if (!isNode(peer, nodes)) {
      external += 1;
      continue;
    }
    if (!isCall) {
      messages.push({ from: node, to: peer, t0: t, t1: t, kind: "raw", type, name, bytes: out, outcome, op, depth,
        count, inferred: false, call: -1 });
      span(t, t);
      continue;
    }
    const index = calls.length;
    calls.push({ t, from: node, to: peer, type, name, out, in_: inb, outcome, op, depth, dur });
    if (op) opOf(op).calls.push(index);

    // the serve that answered it: same function and operation, started within the call
    let serve: Serve | undefined;
    const list = serves.get(`${peer}|${SERVE_OF[type]}|${name}`);
    if (list) {
      for (let i = lowerBound(list, t - CLOCK_SLACK, (s) => s.t); i < list.length && list[i]!.t <= t + dur + CLOCK_SLACK; i++) {
        const s = list[i]!;
        if (!s.used && s.op === op && (s.peer === node || s.peer === 0)) {
          serve = s;
          break;
        }
      }
    }
    if (serve) serve.used = true;
    const answered = outcome === "ok" || outcome === "error";
    const arrive = serve ? Math.min(Math.max(serve.t, t), t + dur) : t + dur / 2;
    const leave = serve ? Math.min(Math.max(serve.t + serve.dur, arrive), t + dur) : arrive;
    messages.push({ from: node, to: peer, t0: t, t1: answered ? arrive : t + dur, kind: "request", type, name,
      bytes: out, outcome, op, depth, count, inferred: !serve, call: index });
    if (answered) {
      messages.push({ from: peer, to: node, t0: leave, t1: t + dur, kind: "reply", type, name, bytes: inb, outcome,
        op, depth, count, inferred: !serve, call: index });
    }
    span(t, t + dur);
  }

  messages.sort((a, b) => a.t0 - b.t0 || a.t1 - b.t1);
  let maxSpan = 0;
  for (const m of messages) if (m.t1 - m.t0 > maxSpan) maxSpan = m.t1 - m.t0;
  const ops = [...opsById.values()]
    .map((o) => (o.t === Infinity ? { ...o, t: o.calls.length ? calls[o.calls[0]!]!.t : 0 } : o))
    .sort((a, b) => a.t - b.t || a.op.localeCompare(b.op));
  if (start === Infinity) {
    start = 0;
    end = 1;
  }
  return { nodes, messages, maxSpan, calls, ops, start, end: Math.max(end, start + 1e-3), external };
}

/** Indexes [from, to) of the messages that may cross the time window [v0, v1]: sorted by t0,
 * so only those starting in [v0 - maxSpan, v1] (a caller still checks t1 >= v0). */
export function visibleRange(model: Pick<DiagramModel, "messages" | "maxSpan">, v0: number, v1: number): [number, number] {
  const key = (m: Message) => m.t0;
  return [lowerBound(model.messages, v0 - model.maxSpan, key), lowerBound(model.messages, v1 + 1e-12, key)];
}

/** How a call of an operation reads in the hop list. */
export function describeCall(c: Call): string {
  const to = typeof c.to === "number" ? `node ${c.to}` : c.to;
  return `t=${c.t.toFixed(3)} s · node ${c.from} → ${to} · ${c.name || c.type} · depth ${c.depth} · ${c.outcome}`;
}
