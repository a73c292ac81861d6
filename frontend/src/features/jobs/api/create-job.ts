import { useMutation, useQueryClient } from "@tanstack/react-query";
import { api } from "@/lib/api-client";
import type { Job, RunMode } from "@/types/api";
import { jobQueryKey } from "./get-job";
import { jobsQueryKey } from "./get-jobs";

export interface CreateJobInput {
  code: string;
  filename: string;
  /** Optional with a scenario: its node count. */
  nodes?: number;
  /** Optional with a scenario: its `stop` (else the descriptor's max_time, else 30 s). */
  duration?: number;
  name?: string;
  /** A library scenario's id (docs/churn.md); its text is copied into the job. */
  scenario?: number;
  /** A scenario's text instead of a library one (not both). */
  churn?: string;
  /** Replace a node that dies on its own by a spare. */
  keep_population?: boolean;
  /** "sim": every node in one process on a virtual clock, duration in virtual seconds, up to
   * 10,000 nodes (live: 1,000); keep_population is refused. Default "live". */
  mode?: RunMode;
  /** An assignment's id: its harness runs with the code (simulated only), so the trace holds its
   * operations (one lookup, one broadcast) to follow in the space-time diagram. */
  assignment?: number;
  /** 0..2147483646 or null; a simulated run's default is 1. */
  seed?: number | null;
  /** The emulated network (docs/network.md), e.g. { net: "king", loss: "1%" }. */
  network?: {
    net?: string; loss?: string; bandwidth?: string; partitions?: string[];
    /** An uploaded matrix or trace (net "matrix:NAME" / "trace:NAME"), at most 4 MB. */
    file_text?: string; asymmetric?: boolean;
  };
}

export const createJob = (input: CreateJobInput): Promise<Job> => api.post<Job>("/api/jobs/", input);

export const useCreateJob = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: createJob,
    onSuccess: (job) => {
      queryClient.setQueryData(jobQueryKey(job.id), job);
      void queryClient.invalidateQueries({ queryKey: jobsQueryKey });
    },
  });
};
