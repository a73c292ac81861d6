import { Fragment, memo } from "react";
import { formatLogTime, formatVirtualTime } from "@/lib/format";
import type { LogLine } from "@/types/api";
import { highlightParts } from "../lib/log-search";

const LEVEL_LABEL: Record<string, string> = {
  debug: "DEBUG",
  info: "INFO",
  warning: "WARN",
  error: "ERROR",
  print: "PRINT",
};

interface LogRowProps {
  line: LogLine;
  /** A simulated job's start (unix seconds); its lines then show virtual time. */
  virtualOrigin?: number | null;
  /** The panel's search: its matches in the text are marked. */
  query?: string;
}

export const LogRow = memo(function LogRow({ line, virtualOrigin = null, query = "" }: LogRowProps) {
  return (
    <div className={`log-line level-${line.level}`} data-testid="log-line" data-node={line.node} data-level={line.level}>
      <span className="log-node" title={`node ${line.node}`}>
        n{line.node}
      </span>
      {virtualOrigin === null ? (
        <span className="log-time">{formatLogTime(line.t)}</span>
      ) : (
        <span className="log-time" title="virtual time since the simulation's start">{formatVirtualTime(line.t - virtualOrigin)}</span>
      )}
      <span className="log-level">{LEVEL_LABEL[line.level] ?? line.level}</span>
      <span className="log-text">
        {query === ""
          ? line.text
          : highlightParts(line.text, query).map((part, index) =>
              part.match ? (
                <mark key={index} data-testid="log-match">{part.text}</mark>
              ) : (
                <Fragment key={index}>{part.text}</Fragment>
              ),
            )}
      </span>
    </div>
  );
});
