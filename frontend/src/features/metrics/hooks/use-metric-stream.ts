import { useEffect, useState } from "react";
import { subscribe } from "@/lib/ws-client";
import type { JobSocketMessage, MetricChunk } from "@/types/api";
import { getMetricChunks } from "../api/get-metric-chunks";
import { MetricStore } from "../lib/metric-store";

/** Redraw the plots at most this often while samples stream in. */
const REDRAW_MS = 500;

export type MetricHistoryState = "loading" | "done" | "error";

/**
 * A job's MetricStore: subscribes to `metric.chunks` on /ws/jobs/<id>/ (the socket the logs
 * share), then pages `/metrics/chunks/` history in, and again after every reconnection from
 * the last chunk id known to be complete (the pattern of use-live-logs.ts). `version`
 * changes, at most every REDRAW_MS, when records were added. No job (undefined): no stream.
 */
export function useMetricStream(jobId: number | undefined) {
  const [store, setStore] = useState(() => new MetricStore());
  const [version, setVersion] = useState(0);
  const [history, setHistory] = useState<MetricHistoryState>("loading");

  useEffect(() => {
    const metrics = new MetricStore();
    setStore(metrics);
    setVersion(0);
    if (jobId === undefined) return;
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    let cursor = 0; // every chunk with id <= cursor is known to be in `metrics`
    let live = false; // history caught up and the socket still open
    let loading: Promise<void> | null = null;
    let reload = false;

    const add = (chunks: readonly MetricChunk[]) => {
      if (live) for (const chunk of chunks) if (chunk.id > cursor) cursor = chunk.id;
      if (metrics.add(chunks) === 0 || timer !== undefined) return;
      timer = setTimeout(() => {
        timer = undefined;
        setVersion((v) => v + 1);
      }, REDRAW_MS);
    };

    const pageHistory = async () => {
      do {
        reload = false;
        let after = cursor;
        for (;;) {
          const page = await getMetricChunks(jobId, after, { signal: controller.signal });
          const chunks = page.chunks ?? [];
          add(chunks);
          const next = page.next_after ?? (chunks.length ? chunks[chunks.length - 1]!.id : null);
          if (chunks.length === 0 || next === null || next <= after) break;
          after = next;
        }
        cursor = Math.max(after, metrics.maxId);
      } while (reload && !controller.signal.aborted);
    };
    const loadHistory = () => {
      if (loading) {
        reload = true;
        return;
      }
      setHistory("loading");
      loading = pageHistory()
        .then(() => {
          live = true;
          setHistory("done");
        })
        .catch(() => {
          if (!controller.signal.aborted) setHistory("error");
        })
        .finally(() => {
          loading = null;
        });
    };

    const unsubscribe = subscribe(`/ws/jobs/${jobId}/`, {
      onStatus: (next) => {
        if (next !== "open") live = false;
      },
      onOpen: loadHistory,
      onMessage: (raw) => {
        const message = raw as JobSocketMessage;
        if (message?.type === "metric.chunks" && Array.isArray(message.chunks)) add(message.chunks);
      },
    });

    return () => {
      controller.abort();
      unsubscribe();
      clearTimeout(timer);
    };
  }, [jobId]);

  return { store, version, history };
}
