import { describe, expect, it } from "vitest";
import { backoffDelay, socketUrl } from "../ws-client";

describe("ws client helpers", () => {
  it("backs off exponentially up to 15 s", () => {
    const mid = () => 0.5; // no jitter
    expect([0, 1, 2, 3, 10, 50].map((n) => backoffDelay(n, mid))).toEqual([500, 1000, 2000, 4000, 15000, 15000]);
    expect(backoffDelay(0, () => 0)).toBe(375);
    expect(backoffDelay(0, () => 1)).toBe(625);
  });

  it("uses wss on https pages", () => {
    expect(socketUrl("/ws/jobs/7/", { protocol: "https:", host: "lab.example:8443" })).toBe("wss://lab.example:8443/ws/jobs/7/");
    expect(socketUrl("/ws/jobs/7/", { protocol: "http:", host: "127.0.0.1:8000" })).toBe("ws://127.0.0.1:8000/ws/jobs/7/");
  });
});
