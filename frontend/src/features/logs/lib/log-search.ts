/** The log panel's search: a case-insensitive substring, the same test for filtering and highlighting. */

/** Longest search the panel sends (the download endpoint takes at most 200 characters). */
export const MAX_SEARCH_LENGTH = 200;

const SPECIAL = /[.*+?^${}()|[\]\\/]/g;

/** A pattern for `query` taken literally, ignoring case; null for an empty query. */
export function searchPattern(query: string): RegExp | null {
  if (query === "") return null;
  // "u": case folding of non-ASCII letters too ("É" finds "é"); no "g": test() keeps no state.
  return new RegExp(query.replace(SPECIAL, "\\$&"), "iu");
}

export interface TextPart {
  text: string;
  match: boolean;
}

/** `text` cut into the stretches that match `query` and those between them, in order. */
export function highlightParts(text: string, query: string): TextPart[] {
  const pattern = searchPattern(query);
  if (pattern === null) return [{ text, match: false }];
  const every = new RegExp(pattern.source, "giu");
  const parts: TextPart[] = [];
  let from = 0;
  for (const found of text.matchAll(every)) {
    const at = found.index ?? 0;
    if (at > from) parts.push({ text: text.slice(from, at), match: false });
    parts.push({ text: found[0], match: true });
    from = at + found[0].length;
  }
  if (from < text.length || parts.length === 0) parts.push({ text: text.slice(from), match: false });
  return parts;
}
