import { useMemo, useRef, useState } from "react";
import { useDebounced } from "../hooks/use-debounced";
import { useFollowScroll } from "../hooks/use-follow-scroll";
import { useLiveLogs } from "../hooks/use-live-logs";
import { isFiltered, NO_FILTER, selectWindow, type LogFilter, type LogKey } from "../lib/log-store";
import { LogDownloads } from "./log-downloads";
import { LogFilters } from "./log-filters";
import { LogRow } from "./log-row";

/** Rows in the DOM: between DOM_ROW_LIMIT and DOM_ROW_LIMIT + DOM_ROW_SLACK (see selectWindow);
 * "show older" raises the limit. Memory holds up to MAX_LOG_LINES. */
export const DOM_ROW_LIMIT = 500;
export const DOM_ROW_SLACK = 500;
const OLDER_STEP = 1000;
/** The search applies once typing pauses this long: each pass reads every line in memory. */
const SEARCH_DEBOUNCE_MS = 150;

const STATUS_LABEL = { connecting: "connecting…", open: "live", closed: "reconnecting…" } as const;

interface LogPanelProps {
  jobId: number;
  nodeCount: number;
  /** The job is over: no "reconnecting" noise, the stream is complete. */
  finished: boolean;
  /** A simulated job's start (unix seconds): its lines are stamped with virtual time from it. */
  virtualOrigin?: number | null;
}

export function LogPanel({ jobId, nodeCount, finished, virtualOrigin = null }: LogPanelProps) {
  const { store, version, status, history, skipped } = useLiveLogs(jobId);
  const [picked, setPicked] = useState<LogFilter>(NO_FILTER);
  const [search, setSearch] = useState("");
  const text = useDebounced(search, SEARCH_DEBOUNCE_MS);
  const filter = useMemo(() => ({ ...picked, text }), [picked, text]);
  const [limit, setLimit] = useState(DOM_ROW_LIMIT);
  const { ref, following, onScroll, jumpToBottom } = useFollowScroll<HTMLDivElement>(version);

  // While the user reads older lines, the view stays still: it only moves on with
  // new lines when following (or when the filters change).
  const shownVersion = useRef(version);
  if (following) shownVersion.current = version;
  const anchor = useRef<LogKey | null>(null);
  const view = useMemo(() => {
    const next = selectWindow(store.lines, filter, limit, DOM_ROW_SLACK, anchor.current);
    anchor.current = next.anchor;
    return next;
  }, [store, shownVersion.current, filter, limit]);
  const hidden = view.total - view.rows.length;
  const jumpToLatest = () => {
    setLimit(DOM_ROW_LIMIT);
    jumpToBottom();
  };
  const statusText =
    history === "loading" ? "loading history…" : history === "error" ? "history failed"
    : finished ? "complete" : STATUS_LABEL[status];

  return (
    <section className="log-panel card" data-testid="log-panel" aria-label="Logs">
      <div className="log-toolbar">
        <h2>Logs</h2>
        <LogFilters filter={picked} nodeCount={Math.max(nodeCount, store.maxNode)} onChange={setPicked}
          search={search} onSearch={setSearch} />
        <span className="log-count muted" data-testid="log-count">
          {isFiltered(filter) ? `${view.total} of ${store.size}` : view.total} line{store.size === 1 ? "" : "s"}
          {store.added > store.size ? ` (last ${store.size} kept)` : ""}
        </span>
        <LogDownloads jobId={jobId} />
        {skipped > 0 && (
          <span className="log-skipped muted" data-testid="log-skipped" title="The live view fell behind; these lines were fetched from the log instead">
            {skipped} line{skipped === 1 ? "" : "s"} skipped live
          </span>
        )}
        <span className={`log-status status-${status}`}>
          {statusText}
        </span>
      </div>
      <div className="log-scroll" ref={ref} onScroll={onScroll} role="log" aria-live="off">
        {hidden > 0 && (
          <button type="button" className="log-more" onClick={() => setLimit((value) => value + OLDER_STEP)}>
            Show {Math.min(hidden, OLDER_STEP)} older lines ({hidden} hidden)
          </button>
        )}
        {view.rows.map((line) => (
          <LogRow key={line.id} line={line} virtualOrigin={virtualOrigin} query={filter.text} />
        ))}
        {view.total === 0 && history !== "loading" && (
          <div className="log-empty muted">{store.size > 0 ? "No line matches." : "No log lines yet."}</div>
        )}
      </div>
      {!following && (
        <button type="button" className="log-jump" onClick={jumpToLatest}>
          ↓ Jump to latest
        </button>
      )}
    </section>
  );
}
