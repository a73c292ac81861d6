/** Drawing the diagram on a 2D canvas, and finding the arrow under the pointer. Only the
 * arrows that cross the window are visited (visibleRange), in a few batched paths per style:
 * 50,000 messages over 200 lanes redraw in a few milliseconds. */
import { visibleRange, type DiagramModel, type Message } from "./diagram-model";
import { laneY, segmentDistance, timeTicks, timeX, type Layout, type View } from "./viewport";

export interface Marks {
  /** An operation to follow: its messages stand out, the others fade. */
  op: string | null;
  /** The arrow clicked. */
  selected: Message | null;
  /** Instants of errors (seconds since the job start): red lines across the lanes. */
  errors: number[];
}

const COLORS = {
  request: "#2f6fdf",
  reply: "#8a94a6",
  raw: "#2a9d8f",
  failed: "#d64545",
  op: "#e07b00",
  lane: "#e3e7ee",
  label: "#4a5363",
  error: "rgba(214, 69, 69, 0.75)",
  selected: "#111111",
};

const failed = (m: Message) => m.kind === "request" && m.outcome !== "ok" && m.outcome !== "error";
const styleOf = (m: Message): keyof typeof COLORS => (failed(m) ? "failed" : m.kind);

/** Draws everything; returns how many arrows were drawn. */
export function drawDiagram(ctx: CanvasRenderingContext2D, model: DiagramModel, layout: Layout, view: View,
  marks: Marks): number {
  const { width, height, gutter, top } = layout;
  ctx.clearRect(0, 0, width, height);
  ctx.font = "11px system-ui, sans-serif";
  ctx.textBaseline = "middle";

  // lanes and their labels (every lane when there is room, else every 10th label)
  ctx.strokeStyle = COLORS.lane;
  ctx.lineWidth = 1;
  ctx.beginPath();
  for (let k = 1; k <= model.nodes; k++) {
    const y = Math.round(laneY(layout, k)) + 0.5;
    ctx.moveTo(gutter, y);
    ctx.lineTo(width, y);
  }
  ctx.stroke();
  ctx.fillStyle = COLORS.label;
  const labelEvery = layout.laneHeight >= 11 ? 1 : Math.ceil(11 / layout.laneHeight / 5) * 5;
  for (let k = 1; k <= model.nodes; k++) {
    if (k === 1 || k % labelEvery === 0) ctx.fillText(`node ${k}`, 4, laneY(layout, k));
  }
  // the time axis
  ctx.textBaseline = "top";
  for (const t of timeTicks(view, Math.max(2, Math.floor((width - gutter) / 110)))) {
    const x = timeX(layout, view, t);
    ctx.fillText(`${Number(t.toPrecision(6))} s`, x + 2, 4);
    ctx.fillRect(x, top - 4, 1, 4);
  }

  ctx.save();
  ctx.beginPath();
  ctx.rect(gutter, top - 2, width - gutter, height - top + 2);
  ctx.clip();

  // errors first, under the arrows
  ctx.strokeStyle = COLORS.error;
  ctx.setLineDash([4, 3]);
  ctx.beginPath();
  for (const t of marks.errors) {
    if (t < view.v0 || t > view.v1) continue;
    const x = Math.round(timeX(layout, view, t)) + 0.5;
    ctx.moveTo(x, top);
    ctx.lineTo(x, height);
  }
  ctx.stroke();
  ctx.setLineDash([]);

  // arrows: one path per style; an operation's own on top
  const [from, to] = visibleRange(model, view.v0, view.v1);
  const paths: Record<string, Path2D> = {};
  let drawn = 0;
  const opFocus = marks.op;
  for (let i = from; i < to; i++) {
    const m = model.messages[i]!;
    if (m.t1 < view.v0) continue;
    drawn++;
    const key = opFocus !== null && m.op === opFocus ? "op" : styleOf(m);
    const path = (paths[key] ??= new Path2D());
    const x0 = timeX(layout, view, m.t0);
    const x1 = timeX(layout, view, m.t1);
    path.moveTo(x0, laneY(layout, m.from));
    path.lineTo(x1, laneY(layout, m.to));
  }
  const showHeads = drawn < 4000;
  for (const key of ["reply", "raw", "request", "failed"] as const) {
    const path = paths[key];
    if (!path) continue;
    ctx.globalAlpha = opFocus !== null ? 0.18 : 1;
    ctx.strokeStyle = COLORS[key];
    ctx.lineWidth = 1;
    ctx.stroke(path);
  }
  ctx.globalAlpha = 1;
  if (paths.op) {
    ctx.strokeStyle = COLORS.op;
    ctx.lineWidth = 2.5;
    ctx.stroke(paths.op);
  }
  if (showHeads) {
    for (let i = from; i < to; i++) {
      const m = model.messages[i]!;
      if (m.t1 < view.v0 || (opFocus !== null && m.op !== opFocus)) continue;
      arrowHead(ctx, layout, view, m, opFocus !== null ? COLORS.op : COLORS[styleOf(m)]);
    }
  }
  if (marks.selected) {
    ctx.strokeStyle = COLORS.selected;
    ctx.lineWidth = 3;
    const m = marks.selected;
    ctx.beginPath();
    ctx.moveTo(timeX(layout, view, m.t0), laneY(layout, m.from));
    ctx.lineTo(timeX(layout, view, m.t1), laneY(layout, m.to));
    ctx.stroke();
  }
  ctx.restore();
  return drawn;
}

function arrowHead(ctx: CanvasRenderingContext2D, layout: Layout, view: View, m: Message, color: string): void {
  const x0 = timeX(layout, view, m.t0);
  const y0 = laneY(layout, m.from);
  const x1 = timeX(layout, view, m.t1);
  const y1 = laneY(layout, m.to);
  const angle = Math.atan2(y1 - y0, x1 - x0);
  const size = 6;
  ctx.fillStyle = color;
  ctx.beginPath();
  ctx.moveTo(x1, y1);
  ctx.lineTo(x1 - size * Math.cos(angle - 0.4), y1 - size * Math.sin(angle - 0.4));
  ctx.lineTo(x1 - size * Math.cos(angle + 0.4), y1 - size * Math.sin(angle + 0.4));
  ctx.closePath();
  ctx.fill();
}

/** The arrow nearest to (x, y) within `radius` pixels, among those shown. */
export function messageAt(model: DiagramModel, layout: Layout, view: View, x: number, y: number,
  radius = 5): Message | null {
  const [from, to] = visibleRange(model, view.v0, view.v1);
  let best: Message | null = null;
  let bestDistance = radius;
  for (let i = from; i < to; i++) {
    const m = model.messages[i]!;
    if (m.t1 < view.v0) continue;
    const d = segmentDistance(x, y, timeX(layout, view, m.t0), laneY(layout, m.from), timeX(layout, view, m.t1),
      laneY(layout, m.to));
    if (d <= bestDistance) {
      best = m;
      bestDistance = d;
    }
  }
  return best;
}
