import { describe, expect, it } from "vitest";
import type { Daemon } from "@/types/daemons";
import {
  availabilityText,
  capacityText,
  labelsText,
  loadText,
  managesDaemons,
  parseCreateForm,
  relativeTime,
  takesJobs,
} from "../daemon-view";

const daemon = (over: Partial<Daemon> = {}): Daemon => ({
  id: 1, name: "lab-1", state: "ONLINE", last_contact: null, ip: "127.0.0.1", max_instances: 8, active_instances: 3,
  ports: [20000, 20999], version: 1, sandbox: "bwrap", labels: {}, limits: {}, availability: "always", available: true,
  unavailable_reason: "", load: null, rtt_ms: null, drained: false, revoked: false, running_jobs: [], ...over,
});

describe("daemon dashboard helpers", () => {
  it("shows the dashboard to instructors only", () => {
    expect(managesDaemons({ id: 1, username: "t", role: "instructor" })).toBe(true);
    expect(managesDaemons({ id: 2, username: "s", role: "student" })).toBe(false);
    // staff who are not instructors: the server says so
    expect(managesDaemons({ id: 3, username: "a", role: "student", manages_daemons: true })).toBe(true);
    expect(managesDaemons({ id: 3, username: "a", role: "ta" })).toBe(false);
    expect(managesDaemons(undefined)).toBe(false);
  });

  it("says how long ago the last contact was", () => {
    const now = Date.parse("2026-01-01T12:00:00Z");
    expect(relativeTime(null, now)).toBe("never");
    expect(relativeTime("2026-01-01T12:00:00.500Z", now)).toBe("just now");
    expect(relativeTime("2026-01-01T11:59:48Z", now)).toBe("12 s ago");
    expect(relativeTime("2026-01-01T11:57:00Z", now)).toBe("3 min ago");
    expect(relativeTime("2026-01-01T10:00:00Z", now)).toBe("2 h ago");
    expect(relativeTime("2025-12-28T12:00:00Z", now)).toBe("4 d ago");
  });

  it("tells whether a daemon takes new jobs, in the scheduler's order", () => {
    expect(takesJobs(daemon())).toEqual({ ok: true, why: "" });
    expect(takesJobs(daemon({ state: "OFFLINE", drained: true }))).toEqual({ ok: false, why: "offline" });
    expect(takesJobs(daemon({ revoked: true }))).toEqual({ ok: false, why: "key revoked" });
    expect(takesJobs(daemon({ drained: true }))).toEqual({ ok: false, why: "drained" });
    expect(takesJobs(daemon({ available: false, unavailable_reason: "owner active" }))).toEqual({
      ok: false, why: "owner active" });
  });

  it("formats capacity, availability, load and labels", () => {
    expect(capacityText(daemon())).toBe("3 / 8");
    expect(availabilityText(daemon())).toBe("always · available");
    expect(availabilityText(daemon({ availability: "idle", available: false, unavailable_reason: "keyboard used" })))
      .toBe("idle · unavailable: keyboard used");
    expect(availabilityText(daemon({ availability: "" }))).toBe("unknown policy · available");
    expect(loadText(daemon())).toBe("—");
    expect(loadText(daemon({ load: 0.5, rtt_ms: 3.14 }))).toBe("0.50 · 3.1 ms");
    expect(labelsText({ room: "B12", owner: "volunteer" })).toBe("room=B12, owner=volunteer");
  });

  it("checks the create form before sending", () => {
    expect(parseCreateForm({ name: " lab-9 ", maxInstances: "4", ports: "30000-30099" })).toEqual({
      name: "lab-9", max_instances: 4, port_lo: 30000, port_hi: 30099, course: null });
    expect(parseCreateForm({ name: "lab-9", maxInstances: "4", ports: "30000-30099", course: "7" })).toEqual({
      name: "lab-9", max_instances: 4, port_lo: 30000, port_hi: 30099, course: 7 });
    expect(parseCreateForm({ name: "bad name", maxInstances: "4", ports: "1-9" })).toMatch(/^Name/);
    expect(parseCreateForm({ name: "x", maxInstances: "0", ports: "1-9" })).toMatch(/^Max instances/);
    expect(parseCreateForm({ name: "x", maxInstances: "2", ports: "9-1" })).toMatch(/^Ports: 1/);
    expect(parseCreateForm({ name: "x", maxInstances: "20", ports: "1-9" })).toBe(
      "Ports: 20 instances need 20 ports; 1-9 has 9.");
  });
});
