import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { subscribe, type SocketStatus } from "@/lib/ws-client";
import type { Job, JobSocketMessage } from "@/types/api";
import { jobQueryKey } from "../api/get-job";
import { jobsQueryKey } from "../api/get-jobs";

/** Applies `job.state` pushes from /ws/jobs/<id>/ to the job query. */
export function useJobSocket(jobId: number | undefined): SocketStatus {
  const queryClient = useQueryClient();
  const [status, setStatus] = useState<SocketStatus>("connecting");

  useEffect(() => {
    if (jobId === undefined || !Number.isFinite(jobId)) return;
    return subscribe(`/ws/jobs/${jobId}/`, {
      onStatus: setStatus,
      // After a (re)connection, refetch what may have changed while disconnected.
      onOpen: () => void queryClient.invalidateQueries({ queryKey: jobQueryKey(jobId) }),
      onMessage: (raw) => {
        const message = raw as JobSocketMessage;
        if (message?.type !== "job.state" || !message.job) return;
        queryClient.setQueryData<Job>(jobQueryKey(jobId), (old) => {
          const next = { ...(old ?? {}), ...message.job } as Job;
          if (message.job.instances === undefined && old?.instances) next.instances = old.instances;
          return next;
        });
        // A push without instances leaves them stale: refetch the job. The list shows the state too.
        if (message.job.instances === undefined) void queryClient.invalidateQueries({ queryKey: jobQueryKey(jobId) });
        if (message.job.state !== undefined) void queryClient.invalidateQueries({ queryKey: jobsQueryKey });
      },
    });
  }, [jobId, queryClient]);

  return status;
}
