import { memo } from "react";
import { formatLogTime, formatVirtualTime } from "@/lib/format";
import type { LogLine } from "@/types/api";

const LEVEL_LABEL: Record<string, string> = {
  debug: "DEBUG",
  info: "INFO",
  warning: "WARN",
  error: "ERROR",
  print: "PRINT",
};

/** `virtualOrigin`: a simulated job's start (unix seconds); its lines then show virtual time. */
export const LogRow = memo(function LogRow({ line, virtualOrigin = null }: { line: LogLine; virtualOrigin?: number | null }) {
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
      <span className="log-text">{line.text}</span>
    </div>
  );
});
