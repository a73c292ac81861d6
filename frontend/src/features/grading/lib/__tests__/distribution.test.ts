import { describe, expect, it } from "vitest";
import { passedText, sparkline } from "../distribution";

describe("score distribution", () => {
  it("draws bins as blocks scaled to the tallest, empty bins blank", () => {
    expect(sparkline([0, 1, 0, 0, 0, 0, 0, 0, 0, 4])).toBe(" ▂       █");
    expect(sparkline([0, 0, 0])).toBe("   ");
    expect(sparkline([2, 2])).toBe("██");
  });

  it("counts passes", () => {
    expect(passedText(3, 4)).toBe("3 / 4 passed");
    expect(passedText(0, 0)).toBe("—");
  });
});
