import { useEffect, useState } from "react";
import { subscribe, type SocketStatus } from "@/lib/ws-client";
import type { JobSocketMessage, LogLine, SkippedGap } from "@/types/api";
import { getJobLogs } from "../api/get-job-logs";
import { LogStore } from "../lib/log-store";
import { backfillGaps, SeqGapTracker, type SeqGap } from "../lib/seq-gaps";

export type HistoryState = "loading" | "done" | "error";

/** At most one render of new lines per this many ms (100 nodes can print thousands a second). */
export const MIN_FLUSH_INTERVAL_MS = 100;
/** Under a flood (last batch this big), render less often: each render costs about the same. */
const BUSY_BATCH = 200;
const BUSY_FLUSH_INTERVAL_MS = 250;
/** Wait before fetching a seq hole's lines again after the REST call failed. */
const BACKFILL_RETRY_MS = 2000;

/**
 * Live log lines of a job: subscribes to /ws/jobs/<id>/, then pages the history in, and
 * again after every reconnection from the last id known to be complete. Incoming lines are
 * buffered and applied in one batch per animation frame, at most every MIN_FLUSH_INTERVAL_MS;
 * `version` changes when lines were added. A hole in a node's `seq` in the live stream (the
 * server dropped messages for this view) is filled from the REST endpoint (lib/seq-gaps.ts),
 * and so are the ranges a `log.skipped` message names (the server skips a view's lines when its
 * socket is too far behind); `skipped` counts those lines, for the page to say so.
 */
export function useLiveLogs(jobId: number) {
  const [store, setStore] = useState(() => new LogStore());
  const [version, setVersion] = useState(0);
  const [status, setStatus] = useState<SocketStatus>("connecting");
  const [history, setHistory] = useState<HistoryState>("loading");
  /** Lines the server skipped for this view (it was too far behind); fetched from the REST log. */
  const [skipped, setSkipped] = useState(0);

  useEffect(() => {
    const logs = new LogStore();
    setStore(logs);
    setVersion(0);
    setSkipped(0);
    const controller = new AbortController();
    let pending: LogLine[] = [];
    let frame = 0;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let scheduled = false;
    let lastFlush = 0;
    let lastBatch = 0;
    let cursor = 0; // every line with id <= cursor is known to be in `logs` (or dropped by the cap)
    let live = false; // history caught up and the socket still open
    let loading: Promise<void> | null = null;
    let reload = false;
    const seqs = new SeqGapTracker();
    let gaps: SeqGap[] = [];
    let backfilling = false;

    const flush = () => {
      cancelAnimationFrame(frame);
      clearTimeout(timer);
      frame = 0;
      timer = undefined;
      scheduled = false;
      lastFlush = performance.now();
      if (pending.length === 0) return;
      const batch = pending;
      pending = [];
      lastBatch = batch.length;
      if (logs.add(batch) > 0) setVersion((v) => v + 1);
    };
    const enqueue = (lines: readonly LogLine[]) => {
      for (const line of lines) pending.push(line);
      if (live) for (const line of lines) if (line.id > cursor) cursor = line.id;
      if (scheduled) return;
      scheduled = true;
      const interval = lastBatch > BUSY_BATCH ? BUSY_FLUSH_INTERVAL_MS : MIN_FLUSH_INTERVAL_MS;
      const wait = Math.max(0, lastFlush + interval - performance.now());
      timer = setTimeout(() => {
        // requestAnimationFrame does not run in background tabs: flush directly there.
        if (document.hidden) flush();
        else frame = requestAnimationFrame(flush);
      }, wait);
    };

    const pageHistory = async () => {
      do {
        reload = false;
        let after = cursor;
        for (;;) {
          const page = await getJobLogs(jobId, after, { signal: controller.signal });
          const lines = page.lines ?? [];
          seqs.known(lines);
          enqueue(lines);
          const next = page.next_after ?? (lines.length ? lines[lines.length - 1]!.id : null);
          if (lines.length === 0 || next === null || next <= after) break;
          after = next;
        }
        flush();
        cursor = Math.max(after, logs.maxId);
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
          seqs.resetMetrics();
          setHistory("done");
        })
        .catch(() => {
          if (!controller.signal.aborted) setHistory("error");
        })
        .finally(() => {
          loading = null;
        });
    };

    const backfill = async () => {
      if (backfilling) return;
      backfilling = true;
      let batch: SeqGap[] = [];
      try {
        while (gaps.length > 0 && !controller.signal.aborted) {
          batch = gaps;
          gaps = [];
          enqueue(
            await backfillGaps(batch, (node, after) => getJobLogs(jobId, after, { node, signal: controller.signal })),
          );
          batch = [];
        }
      } catch {
        // Server unreachable for now: keep the holes and try again shortly.
        gaps = [...batch, ...gaps];
        if (!controller.signal.aborted) setTimeout(() => void backfill(), BACKFILL_RETRY_MS);
      } finally {
        backfilling = false;
      }
    };
    const receiveLines = (lines: LogLine[]) => {
      const found = seqs.live(lines);
      enqueue(lines);
      if (found.length === 0) return;
      gaps.push(...found);
      void backfill();
    };
    const receiveSkipped = (count: number, skippedGaps: SkippedGap[]) => {
      setSkipped((n) => n + count);
      gaps.push(...seqs.skipped(skippedGaps));
      void backfill();
    };

    const unsubscribe = subscribe(`/ws/jobs/${jobId}/`, {
      onStatus: (next) => {
        setStatus(next);
        if (next !== "open") live = false;
      },
      onOpen: loadHistory,
      onMessage: (raw) => {
        const message = raw as JobSocketMessage;
        if (message?.type === "log.lines" && Array.isArray(message.lines)) receiveLines(message.lines);
        else if (message?.type === "log.skipped" && Array.isArray(message.gaps)) {
          receiveSkipped(typeof message.skipped === "number" ? message.skipped : 0, message.gaps);
        }
        else if (message?.type === "metric.chunks" && Array.isArray(message.chunks)) seqs.metrics(message.chunks);
      },
    });

    return () => {
      controller.abort();
      unsubscribe();
      cancelAnimationFrame(frame);
      clearTimeout(timer);
    };
  }, [jobId]);

  return { store, version, status, history, skipped };
}
