import { describe, expect, it } from "vitest";
import { fitView, layoutFor, panBy, segmentDistance, timeTicks, timeX, xTime, zoomAt } from "../viewport";

describe("viewport", () => {
  it("zooms around an instant that stays at the same place on screen", () => {
    const layout = layoutFor(1000, 10);
    const view = { v0: 0, v1: 100 };
    const x = timeX(layout, view, 30);
    const zoomed = zoomAt(view, 30, 0.25);
    expect(zoomed.v1 - zoomed.v0).toBeCloseTo(25);
    expect(timeX(layout, zoomed, 30)).toBeCloseTo(x);
    expect(xTime(layout, zoomed, x)).toBeCloseTo(30);
  });

  it("never narrows below a millisecond, pans by seconds and fits with a margin", () => {
    expect(zoomAt({ v0: 0, v1: 0.002 }, 0.001, 0.01).v1 - zoomAt({ v0: 0, v1: 0.002 }, 0.001, 0.01).v0).toBeCloseTo(0.001);
    expect(panBy({ v0: 1, v1: 2 }, 0.5)).toEqual({ v0: 1.5, v1: 2.5 });
    const fit = fitView(10, 20);
    expect(fit.v0).toBeLessThan(10);
    expect(fit.v1).toBeGreaterThan(20);
  });

  it("gives 200 lanes at least 3 pixels each", () => {
    const layout = layoutFor(900, 200);
    expect(layout.laneHeight).toBe(3);
    expect(layout.height).toBeGreaterThanOrEqual(600);
  });

  it("measures a point's distance to a segment, and picks round ticks", () => {
    expect(segmentDistance(5, 5, 0, 0, 10, 0)).toBeCloseTo(5);
    expect(segmentDistance(-3, 4, 0, 0, 10, 0)).toBeCloseTo(5);
    expect(timeTicks({ v0: 0.03, v1: 1.01 }, 5)).toEqual([0.2, 0.4, 0.6, 0.8, 1]);
  });
});
