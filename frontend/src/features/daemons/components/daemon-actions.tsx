import { useState } from "react";
import { errorText } from "@/components/ui/error-message";
import type { Daemon, DaemonWithKey } from "@/types/daemons";
import { useDaemonAction, useRotateDaemonKey } from "../api/daemon-action";

interface DaemonActionsProps {
  daemon: Daemon;
  onKey: (result: DaemonWithKey) => void;
}

/** Drain/undrain at once; revoke and rotate ask first (both cut a connected daemon off). */
export function DaemonActions({ daemon, onKey }: DaemonActionsProps) {
  const action = useDaemonAction();
  const rotate = useRotateDaemonKey();
  const [confirming, setConfirming] = useState<"revoke" | "rotate" | null>(null);
  const busy = action.isPending || rotate.isPending;
  const error = action.error ?? rotate.error;

  const confirm = () => {
    if (confirming === "revoke") action.mutate({ id: daemon.id, action: "revoke" });
    if (confirming === "rotate") rotate.mutate(daemon.id, { onSuccess: onKey });
    setConfirming(null);
  };

  if (confirming) {
    return (
      <div className="daemon-actions">
        <span>{confirming === "revoke" ? `Revoke ${daemon.name}'s key?` : `Replace ${daemon.name}'s key?`}</span>
        <button type="button" className="danger" onClick={confirm}>
          {confirming === "revoke" ? "Yes, revoke" : "Yes, rotate"}
        </button>
        <button type="button" onClick={() => setConfirming(null)}>
          Cancel
        </button>
      </div>
    );
  }
  return (
    <div className="daemon-actions">
      {daemon.drained ? (
        <button type="button" disabled={busy} onClick={() => action.mutate({ id: daemon.id, action: "undrain" })}>
          Undrain
        </button>
      ) : (
        <button type="button" disabled={busy} onClick={() => action.mutate({ id: daemon.id, action: "drain" })}
          title="No new jobs; running ones continue">
          Drain
        </button>
      )}
      <button type="button" disabled={busy} onClick={() => setConfirming("rotate")}>
        Rotate key
      </button>
      {!daemon.revoked && (
        <button type="button" className="danger" disabled={busy} onClick={() => setConfirming("revoke")}>
          Revoke
        </button>
      )}
      {error && <span className="error-text">{errorText(error)}</span>}
    </div>
  );
}
