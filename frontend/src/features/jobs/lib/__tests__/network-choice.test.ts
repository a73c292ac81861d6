import { describe, expect, it } from "vitest";
import { networkChoice } from "../network-choice";

describe("networkChoice", () => {
  it("sends no model when the code's descriptor decides, only the loss typed", () => {
    expect(networkChoice("", "", "", null, false)).toEqual({});
    expect(networkChoice("", "", " 1% ", null, false)).toEqual({ loss: "1%" });
  });

  it("sends a preset or the custom text", () => {
    expect(networkChoice("king", "x", "", null, false)).toEqual({ net: "king" });
    expect(networkChoice("custom", " transit-stub:2:4 ", "", null, false)).toEqual({ net: "transit-stub:2:4" });
  });

  it("sends an uploaded matrix with its name and text, asymmetric only when asked", () => {
    const file = { name: "delays.csv", text: "0,10\n10,0\n" };
    expect(networkChoice("matrix", "", "", file, true)).toEqual(
      { net: "matrix:delays.csv", file_text: file.text, asymmetric: true });
    expect(networkChoice("trace", "", "2%", file, true)).toEqual(
      { net: "trace:delays.csv", file_text: file.text, loss: "2%" });
  });

  it("names the missing file", () => {
    expect(networkChoice("matrix", "", "", null, false)).toMatch(/Choose a matrix file/);
  });
});
