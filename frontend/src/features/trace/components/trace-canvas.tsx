import { useEffect, useLayoutEffect, useRef, useState } from "react";
import type { DiagramModel, Message } from "../lib/diagram-model";
import { drawDiagram, messageAt, type Marks } from "../lib/draw";
import { laneY, layoutFor, panBy, timeX, xTime, zoomAt, type View } from "../lib/viewport";

interface TraceCanvasProps {
  model: DiagramModel;
  view: View;
  onView: (view: View) => void;
  marks: Marks;
  onSelect: (message: Message | null) => void;
}

/** The lanes and arrows on a canvas: wheel zooms around the pointer (Shift+wheel or a
 * sideways wheel scrolls in time), a drag scrolls, a click selects the nearest arrow; with
 * the focus on it, ←/→ scroll, +/- zoom. Drawing waits for the next animation frame, so a burst
 * of wheel events costs one redraw per frame. */
export function TraceCanvas({ model, view, onView, marks, onSelect }: TraceCanvasProps) {
  const box = useRef<HTMLDivElement>(null);
  const canvas = useRef<HTMLCanvasElement>(null);
  const [width, setWidth] = useState(800);
  const layout = layoutFor(width, model.nodes);
  const latest = useRef({ view, layout, onView });
  latest.current = { view, layout, onView };

  useLayoutEffect(() => {
    const element = box.current;
    if (!element) return;
    const observer = new ResizeObserver(() => setWidth(Math.max(320, element.clientWidth)));
    observer.observe(element);
    setWidth(Math.max(320, element.clientWidth));
    return () => observer.disconnect();
  }, []);

  // one draw per frame, timed: data-frame-ms (the last) and data-drawn (arrows in it)
  useEffect(() => {
    const c = canvas.current;
    if (!c) return;
    const frame = requestAnimationFrame(() => {
      const started = performance.now();
      const ratio = window.devicePixelRatio || 1;
      if (c.width !== Math.round(layout.width * ratio) || c.height !== Math.round(layout.height * ratio)) {
        c.width = Math.round(layout.width * ratio);
        c.height = Math.round(layout.height * ratio);
      }
      const ctx = c.getContext("2d");
      if (!ctx) return;
      ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
      const drawn = drawDiagram(ctx, model, layout, view, marks);
      c.dataset.frameMs = (performance.now() - started).toFixed(2);
      c.dataset.drawn = String(drawn);
      c.dataset.frames = String(Number(c.dataset.frames ?? 0) + 1);
    });
    return () => cancelAnimationFrame(frame);
  }, [model, layout.width, layout.height, view, marks]); // eslint-disable-line react-hooks/exhaustive-deps

  // the wheel must be a non-passive listener to keep the page from scrolling
  useEffect(() => {
    const c = canvas.current;
    if (!c) return;
    const onWheel = (event: WheelEvent) => {
      event.preventDefault();
      const { view: v, layout: l, onView: set } = latest.current;
      const x = event.clientX - c.getBoundingClientRect().left;
      const sideways = event.shiftKey || Math.abs(event.deltaX) > Math.abs(event.deltaY);
      if (sideways) {
        const delta = event.deltaX || event.deltaY;
        set(panBy(v, (delta / (l.width - l.gutter)) * (v.v1 - v.v0)));
      } else {
        set(zoomAt(v, xTime(l, v, Math.max(l.gutter, x)), Math.exp(event.deltaY * 0.0015)));
      }
    };
    c.addEventListener("wheel", onWheel, { passive: false });
    return () => c.removeEventListener("wheel", onWheel);
  }, []);

  const drag = useRef<{ x: number; view: View; moved: boolean } | null>(null);
  const onPointerDown = (event: React.PointerEvent<HTMLCanvasElement>) => {
    event.currentTarget.setPointerCapture?.(event.pointerId);
    drag.current = { x: event.clientX, view, moved: false };
  };
  const onPointerMove = (event: React.PointerEvent<HTMLCanvasElement>) => {
    const d = drag.current;
    if (!d) return;
    const dx = event.clientX - d.x;
    if (Math.abs(dx) > 3) d.moved = true;
    if (d.moved) onView(panBy(d.view, (-dx / (layout.width - layout.gutter)) * (d.view.v1 - d.view.v0)));
  };
  const onPointerUp = (event: React.PointerEvent<HTMLCanvasElement>) => {
    const d = drag.current;
    drag.current = null;
    if (!d || d.moved) return;
    const rect = event.currentTarget.getBoundingClientRect();
    onSelect(messageAt(model, layout, view, event.clientX - rect.left, event.clientY - rect.top));
  };
  const onKeyDown = (event: React.KeyboardEvent<HTMLCanvasElement>) => {
    const w = view.v1 - view.v0;
    const centre = (view.v0 + view.v1) / 2;
    const next =
      event.key === "ArrowLeft" ? panBy(view, -w / 10)
      : event.key === "ArrowRight" ? panBy(view, w / 10)
      : event.key === "+" || event.key === "=" ? zoomAt(view, centre, 0.5)
      : event.key === "-" ? zoomAt(view, centre, 2)
      : null;
    if (next) {
      event.preventDefault();
      onView(next);
    }
  };

  // where the selected arrow is drawn (tests click there; a person sees it outlined)
  const s = marks.selected;
  const point = s ? `${Math.round((timeX(layout, view, s.t0) + timeX(layout, view, s.t1)) / 2)},${Math.round((laneY(layout, s.from) + laneY(layout, s.to)) / 2)}` : "";
  return (
    <div ref={box} className="trace-canvas-box">
      <canvas
        ref={canvas}
        data-testid="trace-canvas"
        data-selected-point={point}
        tabIndex={0}
        role="img"
        aria-label={`Space-time diagram: ${model.nodes} nodes, ${model.messages.length} messages`}
        style={{ width: layout.width, height: layout.height }}
        onPointerDown={onPointerDown}
        onPointerMove={onPointerMove}
        onPointerUp={onPointerUp}
        onKeyDown={onKeyDown}
      />
    </div>
  );
}
