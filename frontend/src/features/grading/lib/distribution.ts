// The class's score distribution drawn in text: one block character per bin.

const BLOCKS = "▁▂▃▄▅▆▇█";

/** A histogram as blocks scaled to its tallest bin; an empty bin is a space. */
export function sparkline(bins: number[]): string {
  const top = Math.max(0, ...bins);
  if (top === 0) return " ".repeat(bins.length);
  return bins.map((n) => (n === 0 ? " " : BLOCKS[Math.min(BLOCKS.length - 1, Math.ceil((n / top) * BLOCKS.length) - 1)])).join("");
}

/** "12 / 20 passed", or a dash when nobody was graded on it. */
export function passedText(passed: number, students: number): string {
  return students === 0 ? "—" : `${passed} / ${students} passed`;
}
