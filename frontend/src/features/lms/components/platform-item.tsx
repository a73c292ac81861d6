import { useState, type FormEvent } from "react";
import { ErrorMessage } from "@/components/ui/error-message";
import { formatDateTime } from "@/lib/format";
import { useDeleteLms, useUpdateLms } from "../api/lms";
import { parseDeploymentIds, type LmsPlatform } from "../lib/lms";

/** One registered LMS: its ids, the LMS course it is bound to, the roster's last sync; instructors add deployment
 * ids (a dynamic registration may come without one) or remove it. */
export function PlatformItem({ courseId, platform: p, canEdit }: { courseId: number; platform: LmsPlatform; canEdit: boolean }) {
  const update = useUpdateLms(courseId);
  const remove = useDeleteLms(courseId);
  const [more, setMore] = useState("");
  const add = (event: FormEvent) => {
    event.preventDefault();
    const ids = parseDeploymentIds(more);
    if (ids.length) update.mutate({ id: p.id, deployment_ids: [...p.deployment_ids, ...ids] }, { onSuccess: () => setMore("") });
  };
  return (
    <li data-testid="lms-platform">
      <strong>{p.name || p.issuer}</strong> — issuer <code>{p.issuer}</code>, client id <code>{p.client_id}</code>,{" "}
      {p.deployment_ids.length ? (
        <>deployments {p.deployment_ids.map((d) => <code key={d}>{d} </code>)}</>
      ) : (
        <span className="error-text">no deployment id yet: launches are refused until you add the LMS's</span>
      )}
      {p.contexts.length === 0 ? (
        <div className="muted">Not bound yet: the first launch from an LMS course binds it.</div>
      ) : (
        p.contexts.map((c) => (
          <div key={c.id} className="muted" data-testid="lms-context">
            Bound to LMS course “{c.title || c.context_id}”; grades {c.grades ? "sent back" : "not offered by the LMS"};
            roster {c.roster_synced_at ? `synced ${formatDateTime(c.roster_synced_at)}` : "not synced yet"}
            {c.roster_error && <span className="error-text"> ({c.roster_error})</span>}
          </div>
        ))
      )}
      {canEdit && (
        <form className="lms-deployment-form" onSubmit={add} aria-label="Add deployment ids">
          <input data-testid="lms-add-deployment" value={more} placeholder="another deployment id"
            onChange={(e) => setMore(e.target.value)} />
          <button type="submit" disabled={update.isPending || !parseDeploymentIds(more).length}>Add</button>
          <button type="button" onClick={() => remove.mutate(p.id)} disabled={remove.isPending}>Remove this LMS</button>
        </form>
      )}
      {update.isError && <ErrorMessage error={update.error} />}
      {remove.isError && <ErrorMessage error={remove.error} />}
    </li>
  );
}
