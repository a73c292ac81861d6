import { useCallback, useEffect, useRef, useState } from "react";
import type { LogLine } from "@/types/api";
import { MetricStore } from "../lib/metric-store";

/** Redraw the plots at most this often while samples stream in. */
const REDRAW_MS = 500;

/**
 * A job's MetricStore, fed by the log stream (`add` is given to the log panel's live stream
 * as its onLines listener); `version` changes, throttled, when records were added.
 */
export function useMetricStore(jobId: number) {
  const [store, setStore] = useState(() => new MetricStore());
  const [version, setVersion] = useState(0);
  const storeRef = useRef(store);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);

  useEffect(() => {
    const fresh = new MetricStore();
    storeRef.current = fresh;
    setStore(fresh);
    setVersion(0);
    return () => clearTimeout(timer.current);
  }, [jobId]);

  const add = useCallback((lines: readonly LogLine[]) => {
    if (storeRef.current.add(lines) === 0 || timer.current !== undefined) return;
    timer.current = setTimeout(() => {
      timer.current = undefined;
      setVersion((v) => v + 1);
    }, REDRAW_MS);
  }, []);

  return { store, version, add };
}
