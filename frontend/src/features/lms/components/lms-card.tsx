import { useState, type FormEvent } from "react";
import "./lms.css";
import { ErrorMessage } from "@/components/ui/error-message";
import { useLmsPlatforms, useRegisterLms, useRosterSync } from "../api/lms";
import { registrationInput, type LmsPlatformInput } from "../lib/lms";
import { PlatformItem } from "./platform-item";

const EMPTY: Record<keyof LmsPlatformInput, string> = {
  name: "", issuer: "", client_id: "", deployment_ids: "", auth_login_url: "", auth_token_url: "", key_set_url: "",
};

const FIELDS: { key: keyof LmsPlatformInput; label: string; placeholder: string }[] = [
  { key: "name", label: "Name (yours)", placeholder: "Canvas, Moodle…" },
  { key: "issuer", label: "Issuer (platform id)", placeholder: "https://canvas.instructure.com" },
  { key: "client_id", label: "Client id", placeholder: "10000000000042" },
  { key: "deployment_ids", label: "Deployment id(s), one per line", placeholder: "7:abc…" },
  { key: "auth_login_url", label: "Authentication request URL", placeholder: "https://…/authorize_redirect" },
  { key: "auth_token_url", label: "Access token URL", placeholder: "https://…/token" },
  { key: "key_set_url", label: "Public keyset URL (JWKS)", placeholder: "https://…/jwks" },
];

/** The course page's LMS card (staff): the URLs to give the LMS, the registrations with the LMS course
 * they are bound to and the roster's last sync; instructors register an LMS here (docs/lms.md). */
export function LmsCard({ courseId, canEdit }: { courseId: number; canEdit: boolean }) {
  const lms = useLmsPlatforms(courseId);
  const register = useRegisterLms(courseId);
  const roster = useRosterSync(courseId);
  const [fields, setFields] = useState(EMPTY);
  const [invalid, setInvalid] = useState<string | null>(null);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const parsed = registrationInput(fields);
    if ("error" in parsed) return setInvalid(parsed.error);
    setInvalid(null);
    register.mutate(parsed.ok, { onSuccess: () => setFields(EMPTY) });
  };

  return (
    <section className="card lms-card" aria-label="LMS (LTI 1.3)" data-testid="lms-card">
      <h2>LMS (LTI 1.3)</h2>
      {lms.isError && <ErrorMessage error={lms.error} />}
      {lms.data && (
        <>
          <p className="muted">Add SplayLab to your LMS as an LTI 1.3 tool with these URLs, then register what the LMS shows you below.</p>
          <table className="lms-tool-urls" data-testid="lms-tool-urls">
            <tbody>
              <tr><th scope="row">Login (OIDC initiation) URL</th><td><code>{lms.data.tool.login_url}</code></td></tr>
              <tr><th scope="row">Target link / redirect URI</th><td><code>{lms.data.tool.launch_url}</code></td></tr>
              <tr><th scope="row">Public keyset (JWKS) URL</th><td><code>{lms.data.tool.jwks_url}</code></td></tr>
              {lms.data.tool.dynamic_registration_url && (
                <tr>
                  <th scope="row">Dynamic registration URL (LMSs that offer it; registers in your name, valid 7 days)</th>
                  <td><code data-testid="lms-dynamic-url">{lms.data.tool.dynamic_registration_url}</code></td>
                </tr>
              )}
            </tbody>
          </table>
          {lms.data.platforms.length === 0 && <p data-testid="lms-none">No LMS registered for this course.</p>}
          <ul className="lms-platforms">
            {lms.data.platforms.map((p) => <PlatformItem key={p.id} courseId={courseId} platform={p} canEdit={canEdit} />)}
          </ul>
          {lms.data.platforms.some((p) => p.contexts.length > 0) && (
            <p>
              <button type="button" data-testid="lms-roster-sync" onClick={() => roster.mutate()} disabled={roster.isPending}>
                {roster.isPending ? "Syncing…" : "Sync the roster from the LMS"}
              </button>
              {roster.isSuccess && <span role="status"> {roster.data.members} members synced.</span>}
            </p>
          )}
          {roster.isError && <ErrorMessage error={roster.error} />}
        </>
      )}
      {canEdit && (
        <form className="lms-form" onSubmit={submit} aria-label="Register an LMS">
          <h3>Register an LMS</h3>
          {FIELDS.map((f) => (
            <label key={f.key}>
              {f.label}
              {f.key === "deployment_ids" ? (
                <textarea data-testid={`lms-${f.key}`} rows={2} value={fields[f.key]} placeholder={f.placeholder}
                  onChange={(e) => setFields({ ...fields, [f.key]: e.target.value })} />
              ) : (
                <input data-testid={`lms-${f.key}`} value={fields[f.key]} placeholder={f.placeholder} spellCheck={false}
                  onChange={(e) => setFields({ ...fields, [f.key]: e.target.value })} />
              )}
            </label>
          ))}
          <button type="submit" className="primary" data-testid="lms-register" disabled={register.isPending}>
            Register
          </button>
        </form>
      )}
      {invalid && <div className="error-box" data-testid="lms-invalid">{invalid}</div>}
      {register.isError && <ErrorMessage error={register.error} />}
    </section>
  );
}
