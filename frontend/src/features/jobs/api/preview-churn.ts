import { api } from "@/lib/api-client";
import type { ChurnPreview } from "@/types/api";

/** A text's errors are a 200 answer ({errors: [...]}): only transport or server failures
 * throw. The signal cancels a request the student has typed past. */
export const previewChurn = (text: string, signal?: AbortSignal): Promise<ChurnPreview> =>
  api.post<ChurnPreview>("/api/scenarios/preview/", { text }, { signal });
