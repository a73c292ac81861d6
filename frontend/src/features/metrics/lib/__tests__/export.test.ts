import { describe, expect, it } from "vitest";
import { MetricStore } from "../metric-store";
import { seriesCsv } from "../export";

describe("seriesCsv", () => {
  it("writes t,node,value and a column per field name, in time order, raw values", () => {
    const store = new MetricStore();
    store.add([
      { id: 2, node: [2], name: "lookup", kind: "observe", t: [5.5], value: [0.25], fields: [{ hops: 3, key: 'a,"b"' }] },
      { id: 1, node: [1, 1], name: "lookup", kind: "observe", t: [5, 6], value: [0.1, 0.2], fields: null },
    ]);
    expect(seriesCsv(store.series.get("lookup")!)).toBe(
      't,node,value,hops,key\n5,1,0.1,,\n5.5,2,0.25,3,"a,""b"""\n6,1,0.2,,\n');
  });

  it("has only the three columns without fields", () => {
    const store = new MetricStore();
    store.add([{ id: 1, node: [4], name: "sent", kind: "count", t: [1], value: [2], fields: null }]);
    expect(seriesCsv(store.series.get("sent")!)).toBe("t,node,value\n1,4,2\n");
  });
});
