/** Runs overlaid at once at most: the plot has this many distinct colours after the own run. */
export const MAX_COMPARED = 6;

/** Job ids typed in the compare box ("12, 15 17"): positive integers, in order, without
 * duplicates or the own job, at most MAX_COMPARED. Anything else is ignored. */
export function parseJobIds(text: string, own?: number): number[] {
  const ids: number[] = [];
  for (const part of text.split(/[\s,;]+/)) {
    if (!/^#?\d+$/.test(part)) continue;
    const id = Number(part.replace("#", ""));
    if (id > 0 && id !== own && !ids.includes(id)) ids.push(id);
  }
  return ids.slice(0, MAX_COMPARED);
}
