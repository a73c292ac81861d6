import type { Message } from "../lib/diagram-model";

const KIND_LABEL = { request: "request", reply: "reply", raw: "raw message" } as const;

/** What one arrow stands for, in the trace's words (docs/trace.md). */
export function MessageDetail({ message: m, onFollow }: { message: Message; onFollow?: () => void }) {
  return (
    <dl className="trace-detail" data-testid="trace-detail">
      <dt>Message</dt>
      <dd>
        {KIND_LABEL[m.kind]} of {m.type} <strong>{m.name || "(no function)"}</strong>: node {m.from} → node {m.to}
        {m.count > 1 ? ` (${m.count} events aggregated)` : ""}
      </dd>
      <dt>Time</dt>
      <dd>
        left {m.t0.toFixed(6)} s, arrived {m.t1.toFixed(6)} s{m.inferred ? " (arrival inferred: no serve row matched)" : ""}
      </dd>
      <dt>Size</dt>
      <dd>{m.bytes.toLocaleString()} bytes</dd>
      <dt>Outcome</dt>
      <dd>{m.outcome}</dd>
      {m.op && (
        <>
          <dt>Operation</dt>
          <dd>
            {m.op}, depth {m.depth}{" "}
            {onFollow && (
              <button type="button" className="link-button" data-testid="trace-follow" onClick={onFollow}>
                Follow this operation
              </button>
            )}
          </dd>
        </>
      )}
    </dl>
  );
}
