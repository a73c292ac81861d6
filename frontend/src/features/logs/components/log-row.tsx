import { memo } from "react";
import { formatLogTime } from "@/lib/format";
import type { LogLine } from "@/types/api";

const LEVEL_LABEL: Record<string, string> = {
  debug: "DEBUG",
  info: "INFO",
  warning: "WARN",
  error: "ERROR",
  print: "PRINT",
};

export const LogRow = memo(function LogRow({ line }: { line: LogLine }) {
  return (
    <div className={`log-line level-${line.level}`} data-testid="log-line" data-node={line.node} data-level={line.level}>
      <span className="log-node" title={`node ${line.node}`}>
        n{line.node}
      </span>
      <span className="log-time">{formatLogTime(line.t)}</span>
      <span className="log-level">{LEVEL_LABEL[line.level] ?? line.level}</span>
      <span className="log-text">{line.text}</span>
    </div>
  );
});
