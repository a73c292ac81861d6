import { describe, expect, it } from "vitest";
import { completionsAt, hoverAt, moduleAliases, signatureAt } from "../splay-completion";
import { SPLAY_API } from "../splay-api";

const aliases = moduleAliases('require "splay.base"\nlocal r = require("splay.rpc")\n');
const labels = (before: string) => completionsAt(before, aliases).map((c) => c.label);

describe("completionsAt", () => {
  it("offers the events module's public functions and fields after `events.`", () => {
    const events = SPLAY_API.modules.find((m) => m.name === "events")!;
    const items = labels("  events.");
    expect(items).toContain("thread");
    expect(items).toContain("sleep");
    expect(items).toContain("settings");
    expect(items).not.toContain("wait_socket"); // the runtime's plumbing
    expect(items).toHaveLength(events.functions.filter((f) => !f.internal).length + events.fields.filter((f) => !f.internal).length);
  });

  it("follows a local bound to require, the module's own name, and method calls on log", () => {
    expect(labels("r.")).toContain("call");
    expect(labels("x = rpc.ca")).toContain("acall");
    expect(labels("log:")).toContain("print");
    expect(labels("job.")).toEqual(expect.arrayContaining(["me", "nodes", "position", "get_live_nodes"]));
  });

  it("offers module names inside require and nothing after an unknown table or a longer chain", () => {
    expect(labels('local q = require "splay.')).toContain("splay.rpc");
    expect(labels("require('")).toContain("splay.events");
    expect(labels("foo.")).toEqual([]);
    expect(labels("a.events.")).toEqual([]);
  });

  it("describes an item by its signature, doc and example", () => {
    const sleep = completionsAt("events.", aliases).find((c) => c.label === "sleep")!;
    expect(sleep.kind).toBe("function");
    expect(sleep.detail).toMatch(/^events\.sleep\(/);
    expect(sleep.documentation).toContain(SPLAY_API.modules.find((m) => m.name === "events")!.functions.find((f) => f.name === "sleep")!.doc);
  });
});

describe("hoverAt", () => {
  const line = '  r.call(job.me, {"ping"}) ; local x = require "splay.misc"';
  it("explains a function under the cursor, with its place on the line", () => {
    const hover = hoverAt(line, 5, aliases)!;
    expect(hover.name).toBe("rpc.call");
    expect([hover.startColumn, hover.endColumn]).toEqual([3, 9]);
    expect(hover.contents[0]).toContain("rpc.call(");
  });

  it("explains a field and a required module; nothing elsewhere", () => {
    expect(hoverAt(line, 13, aliases)!.name).toBe("job.me");
    expect(hoverAt(line, line.indexOf("splay.misc") + 2, aliases)!.name).toBe("splay.misc");
    expect(hoverAt(line, 1, aliases)).toBeNull();
  });
});

describe("signatureAt", () => {
  it("names the call being typed and the parameter the cursor is in", () => {
    const sig = signatureAt('rpc.call(job.me, {"f", misc.time()}, ', aliases)!;
    expect(sig.label).toMatch(/^rpc\.call\(/);
    expect(sig.activeParameter).toBe(2);
    const [start, end] = sig.params[0]!.label;
    expect(sig.label.slice(start, end)).toBe(SPLAY_API.modules.find((m) => m.name === "rpc")!.functions.find((f) => f.name === "call")!.params[0]!.name);
  });

  it("is null outside a SPLAY call or once it is closed", () => {
    expect(signatureAt("print(", aliases)).toBeNull();
    expect(signatureAt("events.sleep(1) ", aliases)).toBeNull();
    expect(signatureAt("events.sleep(", aliases)!.activeParameter).toBe(0);
  });
});
