import { api } from "@/lib/api-client";
import type { ChurnPreview } from "@/types/api";

/** Errors are a 200 answer ({errors: [...]}), not an exception: only transport or server
 * failures throw. The signal cancels a request the user has typed past. */
export const previewScenario = (text: string, signal?: AbortSignal): Promise<ChurnPreview> =>
  api.post<ChurnPreview>("/api/scenarios/preview/", { text }, { signal });
