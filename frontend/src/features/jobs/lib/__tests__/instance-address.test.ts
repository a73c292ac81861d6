import { describe, expect, it } from "vitest";
import { instanceAddress } from "../instance-address";

describe("instanceAddress", () => {
  it("shows the node's own address and port", () => {
    expect(instanceAddress({ ip: "127.1.82.9", port: 21001 })).toBe("127.1.82.9:21001");
  });
  it("shows the port alone for an instance recorded without an address", () => {
    expect(instanceAddress({ ip: null, port: 21001 })).toBe("21001");
    expect(instanceAddress({ port: 21001 })).toBe("21001");
  });
  it("shows a dash before the port is known", () => {
    expect(instanceAddress({ ip: null, port: null })).toBe("—");
  });
});
