// The course's LMS link (backend/lti): registrations, the tool's URLs, each gradebook cell's passback state.

export interface LmsContext {
  id: number;
  context_id: string;
  title: string;
  grades: boolean;
  roster: boolean;
  roster_synced_at: string | null;
  roster_error: string;
}

/** What an instructor registers (the course page's LMS form). */
export interface LmsPlatformInput {
  name: string;
  issuer: string;
  client_id: string;
  deployment_ids: string[];
  auth_login_url: string;
  auth_token_url: string;
  key_set_url: string;
}

/** A registration as the API lists it: what was registered, and the LMS courses bound to it. */
export interface LmsPlatform extends LmsPlatformInput {
  id: number;
  created_at: string;
  contexts: LmsContext[];
}

export interface LmsToolUrls {
  login_url: string;
  launch_url: string;
  deep_link_url: string;
  jwks_url: string;
  redirect_uris: string;
  domain: string;
  /** Instructors only: the course's LTI Dynamic Registration URL (it registers in their name; valid 7 days). */
  dynamic_registration_url?: string;
}

export interface LmsPlatforms {
  tool: LmsToolUrls;
  platforms: LmsPlatform[];
}


/** Deployment ids as an instructor pastes them: one per line or comma-separated, blanks dropped, no repeats. */
export function parseDeploymentIds(text: string): string[] {
  const ids = text
    .split(/[\n,]/)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  return [...new Set(ids)];
}

/** The registration form's fields checked before posting: every field but the name is required. */
export function registrationInput(fields: Record<keyof LmsPlatformInput, string>): { ok: LmsPlatformInput } | { error: string } {
  const deployment_ids = parseDeploymentIds(fields.deployment_ids);
  const missing = (["issuer", "client_id", "auth_login_url", "auth_token_url", "key_set_url"] as const).filter(
    (k) => !fields[k].trim(),
  );
  if (missing.length) return { error: `Fill in: ${missing.join(", ")}` };
  if (!deployment_ids.length) return { error: "Give at least one deployment id (the LMS shows it beside the client id)." };
  return {
    ok: {
      name: fields.name.trim(),
      issuer: fields.issuer.trim(),
      client_id: fields.client_id.trim(),
      deployment_ids,
      auth_login_url: fields.auth_login_url.trim(),
      auth_token_url: fields.auth_token_url.trim(),
      key_set_url: fields.key_set_url.trim(),
    },
  };
}
