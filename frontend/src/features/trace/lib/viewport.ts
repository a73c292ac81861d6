/** The diagram's time window and the geometry of lanes and arrows (pure: the canvas draws it). */

export interface View {
  /** The time window shown, seconds since the job start. */
  v0: number;
  v1: number;
}

export interface Layout {
  width: number;
  height: number;
  /** Left gutter holding the lane labels. */
  gutter: number;
  top: number;
  laneHeight: number;
}

/** The narrowest window: a millisecond (a simulated LAN exchange takes less than that). */
export const MIN_WINDOW = 1e-3;
export const GUTTER = 64;
export const TOP = 22;
const MAX_LANE = 22;
const MIN_LANE = 3;
/** The diagram grows to this many pixels of lanes before lanes get thinner. */
const LANES_HEIGHT = 560;

export function layoutFor(width: number, nodes: number): Layout {
  const laneHeight = Math.max(MIN_LANE, Math.min(MAX_LANE, LANES_HEIGHT / Math.max(1, nodes)));
  return { width, height: Math.ceil(TOP + laneHeight * nodes + 8), gutter: GUTTER, top: TOP, laneHeight };
}

export const laneY = (layout: Layout, node: number) => layout.top + (node - 0.5) * layout.laneHeight;

export const timeX = (layout: Layout, view: View, t: number) =>
  layout.gutter + ((t - view.v0) / (view.v1 - view.v0)) * (layout.width - layout.gutter - 8);

export const xTime = (layout: Layout, view: View, x: number) =>
  view.v0 + ((x - layout.gutter) / (layout.width - layout.gutter - 8)) * (view.v1 - view.v0);

/** The window [start, end] with a little margin: the whole run. */
export function fitView(start: number, end: number): View {
  const pad = Math.max((end - start) * 0.02, MIN_WINDOW);
  return { v0: start - pad, v1: end + pad };
}

/** Zoom by `factor` (< 1 narrows the window) keeping instant `at` where it is on screen. */
export function zoomAt(view: View, at: number, factor: number): View {
  const width = Math.max(MIN_WINDOW, (view.v1 - view.v0) * factor);
  const share = (at - view.v0) / (view.v1 - view.v0);
  const v0 = at - share * width;
  return { v0, v1: v0 + width };
}

/** Move the window by `seconds` (positive: later). */
export const panBy = (view: View, seconds: number): View => ({ v0: view.v0 + seconds, v1: view.v1 + seconds });

/** A window of `width` seconds centred on `t`. */
export const centreOn = (t: number, width: number): View => ({ v0: t - width / 2, v1: t + width / 2 });

/** Distance in pixels from (px, py) to the segment (x0, y0)-(x1, y1). */
export function segmentDistance(px: number, py: number, x0: number, y0: number, x1: number, y1: number): number {
  const dx = x1 - x0;
  const dy = y1 - y0;
  const len2 = dx * dx + dy * dy;
  const s = len2 === 0 ? 0 : Math.max(0, Math.min(1, ((px - x0) * dx + (py - y0) * dy) / len2));
  const ex = x0 + s * dx - px;
  const ey = y0 + s * dy - py;
  return Math.sqrt(ex * ex + ey * ey);
}

/** Ticks for the time axis: about `count` round steps (1, 2, 5 × 10^k seconds) across the view. */
export function timeTicks(view: View, count: number): number[] {
  const raw = (view.v1 - view.v0) / Math.max(1, count);
  const pow = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * pow).find((s) => s >= raw) ?? 10 * pow;
  const ticks: number[] = [];
  for (let t = Math.ceil(view.v0 / step) * step; t <= view.v1; t += step) ticks.push(Number(t.toFixed(9)));
  return ticks;
}
