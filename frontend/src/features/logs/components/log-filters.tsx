import { LOG_LEVELS, type LogLevel } from "@/types/api";
import { MAX_SEARCH_LENGTH } from "../lib/log-search";
import type { LogFilter } from "../lib/log-store";

interface LogFiltersProps {
  /** Node and level; the text is `search`'s (applied after typing pauses). */
  filter: LogFilter;
  nodeCount: number;
  onChange: (filter: LogFilter) => void;
  search: string;
  onSearch: (text: string) => void;
}

export function LogFilters({ filter, nodeCount, onChange, search, onSearch }: LogFiltersProps) {
  const nodes = Array.from({ length: Math.max(0, nodeCount) }, (_, index) => index + 1);
  return (
    <div className="log-filters">
      <label htmlFor="log-node-filter">Node</label>
      <select
        id="log-node-filter"
        data-testid="log-node-filter"
        value={filter.node === null ? "" : String(filter.node)}
        onChange={(event) => onChange({ ...filter, node: event.target.value === "" ? null : Number(event.target.value) })}
      >
        <option value="">all nodes</option>
        {nodes.map((node) => (
          <option key={node} value={String(node)}>
            node {node}
          </option>
        ))}
      </select>
      <label htmlFor="log-level-filter">Level</label>
      <select
        id="log-level-filter"
        data-testid="log-level-filter"
        value={filter.level ?? ""}
        onChange={(event) => onChange({ ...filter, level: (event.target.value || null) as LogLevel | null })}
      >
        <option value="">all levels</option>
        {LOG_LEVELS.map((level) => (
          <option key={level} value={level}>
            {level}
          </option>
        ))}
      </select>
      <input
        type="search"
        className="log-search"
        data-testid="log-search"
        aria-label="Search the log (ignores case)"
        placeholder="Search lines"
        maxLength={MAX_SEARCH_LENGTH}
        value={search}
        onChange={(event) => onSearch(event.target.value)}
      />
    </div>
  );
}
