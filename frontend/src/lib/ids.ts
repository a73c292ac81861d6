/** A route parameter that must be a positive integer id ("12" → 12; anything else → undefined). */
export function positiveId(text: string | undefined | null): number | undefined {
  const id = Number(text);
  return text && Number.isInteger(id) && id > 0 ? id : undefined;
}
