import { useEffect, useState } from "react";
import { subscribe } from "@/lib/ws-client";
import type { ChurnEvent, ChurnPlan, JobSocketMessage } from "@/types/api";
import { getJobChurn, getJobChurnAfter } from "../api/get-job-churn";
import { mergeEvents } from "../lib/population";

export type ChurnHistoryState = "loading" | "done" | "error";

/**
 * A job's churn: subscribes to `churn.events` on /ws/jobs/<id>/ (the socket the logs and
 * metrics share), then fetches GET /api/jobs/<id>/churn/ (the plan and every event so far) and,
 * after a reconnection, `?after=` the last id a fetch returned; events seen both ways are kept
 * once (mergeEvents).
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
    let cursor: number | null = null; // every event with id <= cursor has been fetched
    const load = () => {
      const request = cursor === null
        ? getJobChurn(jobId, { signal: controller.signal }).then((answer) => {
          setPlan(answer.planned);
          return answer;
        })
        : getJobChurnAfter(jobId, cursor, { signal: controller.signal });
      request
        .then((answer) => {
          const events = answer.events ?? [];
          setEpoch(answer.epoch);
          add(events);
          cursor = events.reduce((last, e) => Math.max(last, e.id), cursor ?? 0);
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
