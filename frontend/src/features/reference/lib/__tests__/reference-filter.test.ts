import { describe, expect, it } from "vitest";
import { SPLAY_API } from "@/lib/splay-api";
import { filterReference } from "../reference-filter";

describe("filterReference", () => {
  it("lists every module with its public members when the query is empty", () => {
    const all = filterReference("");
    expect(all.map((r) => r.module.name)).toEqual(SPLAY_API.modules.map((m) => m.name));
    const events = all.find((r) => r.module.name === "events")!;
    expect(events.functions.some((f) => f.internal)).toBe(false);
  });

  it("keeps only the members whose name or doc matches, in their module", () => {
    const found = filterReference("events.sleep");
    expect(found[0]!.module.name).toBe("events");
    expect(found[0]!.functions.map((f) => f.name)).toEqual(["sleep"]);
    // elsewhere only members whose doc names it (socket.sleep says it is events.sleep)
    for (const r of found.slice(1)) {
      for (const f of r.functions) expect(`${r.module.name}.${f.name} ${f.doc}`.toLowerCase()).toContain("events.sleep");
    }
    expect(filterReference("no such thing at all")).toEqual([]);
  });

  it("keeps a whole module whose name matches", () => {
    const rpc = filterReference("splay.rpc").find((r) => r.module.name === "rpc")!;
    expect(rpc.functions.map((f) => f.name)).toContain("call");
  });
});
