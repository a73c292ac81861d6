import { CopyButton } from "@/components/ui/copy-button";
import type { DaemonWithKey } from "@/types/daemons";

interface KeyRevealProps {
  result: DaemonWithKey;
  what: "created" | "rotated";
  onDismiss: () => void;
}

/** A daemon's key, shown this once (the server keeps only its hash), with its splayd.toml. */
export function KeyReveal({ result, what, onDismiss }: KeyRevealProps) {
  return (
    <section className="card key-reveal" aria-label="Daemon key" data-testid="daemon-key-reveal">
      <h2>
        {what === "created" ? "New daemon" : "New key for"} {result.daemon.name}
      </h2>
      <p>
        This key is shown <strong>once</strong>: copy it now. SplayLab stores only its hash.
        {what === "rotated" && " The old key no longer works: restart the daemon with this one."}
      </p>
      <div className="key-line">
        <code data-testid="daemon-key">{result.key}</code>
        <CopyButton text={result.key} label="Copy key" />
      </div>
      <p className="muted">
        {what === "created"
          ? "A ready splayd.toml (set ip to the address other nodes reach this machine at; the owner may add labels, limits and an availability policy, see daemon/README.md):"
          : "Replace the key line of its splayd.toml:"}
      </p>
      <pre className="config-snippet" data-testid="daemon-config">
        {result.config}
      </pre>
      <div className="key-line">
        <CopyButton text={result.config} label="Copy config" />
        <button type="button" onClick={onDismiss}>
          Done
        </button>
      </div>
    </section>
  );
}
