import { useEffect, useState } from "react";
import { subscribe } from "@/lib/ws-client";
import type { ChurnEvent, ChurnPlan, JobSocketMessage } from "@/types/api";
import { getJobChurn } from "../api/get-job-churn";
import { mergeEvents } from "../lib/population";

export type ChurnHistoryState = "loading" | "done" | "error";

/**
 * A job's churn: subscribes to `churn.events` on /ws/jobs/<id>/ (the socket the logs and
 * metrics share), then, after every (re)connection, fetches GET /api/jobs/<id>/churn/ (the
 * plan and every event so far); events seen both ways are kept once (mergeEvents).
 */
export function useChurnStream(jobId: number) {
  const [plan, setPlan] = useState<ChurnPlan | null>(null);
  const [epoch, setEpoch] = useState<number | null>(null);
  const [events, setEvents] = useState<readonly ChurnEvent[]>([]);
  const [history, setHistory] = useState<ChurnHistoryState>("loading");

  useEffect(() => {
    setPlan(null);
    setEpoch(null);
    setEvents([]);
    setHistory("loading");
    const controller = new AbortController();
    const add = (incoming: readonly ChurnEvent[]) => setEvents((known) => mergeEvents(known, incoming));
    const load = () => {
      getJobChurn(jobId, { signal: controller.signal })
        .then((answer) => {
          setPlan(answer.planned);
          setEpoch(answer.epoch);
          add(answer.events ?? []);
          setHistory("done");
        })
        .catch(() => {
          if (!controller.signal.aborted) setHistory("error");
        });
    };
    const unsubscribe = subscribe(`/ws/jobs/${jobId}/`, {
      onOpen: load,
      onMessage: (raw) => {
        const message = raw as JobSocketMessage;
        if (message?.type === "churn.events" && Array.isArray(message.events)) add(message.events);
      },
    });
    return () => {
      controller.abort();
      unsubscribe();
    };
  }, [jobId]);

  return { plan, epoch, events, history };
}
