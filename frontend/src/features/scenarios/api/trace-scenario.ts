import { useMutation } from "@tanstack/react-query";
import { api } from "@/lib/api-client";
import type { ChurnTrace, ChurnTraceInput } from "@/types/api";

/** The text's errors are a 200 answer ({errors: [...]}), as the preview's; a bad setting throws
 * an ApiError (400, its body by field). Nothing is saved: the library is left as it is. */
export const traceScenario = (input: ChurnTraceInput): Promise<ChurnTrace> =>
  api.post<ChurnTrace>("/api/scenarios/trace/", input);

export const useTraceScenario = () => useMutation({ mutationFn: traceScenario });
