import { ApiError } from "@/lib/api-client";

/** A refused save, by field: the 400 body {"name": [...], "text": ["line 1, column 6: …"]}. */
export interface SaveErrors {
  name: string[];
  description: string[];
  text: string[];
  /** Anything else (403, a server error, a lost connection). */
  other: string | null;
}

const strings = (value: unknown): string[] =>
  Array.isArray(value) ? value.map(String) : typeof value === "string" ? [value] : [];

export function saveErrors(error: unknown): SaveErrors | null {
  if (!error) return null;
  if (error instanceof ApiError && error.status === 400 && error.body && typeof error.body === "object") {
    const body = error.body as Record<string, unknown>;
    const byField = { name: strings(body.name), description: strings(body.description), text: strings(body.text) };
    const known = byField.name.length + byField.description.length + byField.text.length > 0;
    return { ...byField, other: known ? null : error.message };
  }
  return { name: [], description: [], text: [], other: error instanceof Error ? error.message : String(error) };
}
