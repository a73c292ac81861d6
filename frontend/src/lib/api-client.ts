// The one HTTP client: same-origin fetch with Django session cookies and CSRF.

export class ApiError extends Error {
  readonly status: number;
  readonly body: unknown;

  constructor(status: number, message: string, body: unknown) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.body = body;
  }
}

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS", "TRACE"]);
const CSRF_BOOTSTRAP_URL = "/api/auth/me/";

export function readCookie(name: string, cookieString: string = document.cookie): string | null {
  for (const part of cookieString.split(";")) {
    const eq = part.indexOf("=");
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === name) {
      return decodeURIComponent(part.slice(eq + 1).trim());
    }
  }
  return null;
}

/** Human message from a DRF error body ({detail}, {field: [msgs]}, or a string). */
export function errorMessage(body: unknown, fallback: string): string {
  if (typeof body === "string" && body.trim() && !body.trimStart().startsWith("<")) return body;
  if (body && typeof body === "object") {
    const record = body as Record<string, unknown>;
    if (typeof record.detail === "string") return record.detail;
    const parts: string[] = [];
    for (const [key, value] of Object.entries(record)) {
      const text = Array.isArray(value) ? value.join(" ") : typeof value === "string" ? value : "";
      if (text) parts.push(key === "non_field_errors" ? text : `${key}: ${text}`);
    }
    if (parts.length) return parts.join("; ");
  }
  return fallback;
}

async function parseBody(response: Response): Promise<unknown> {
  if (response.status === 204) return null;
  const text = await response.text();
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export interface RequestOptions {
  method?: string;
  body?: unknown;
  params?: Record<string, string | number | undefined | null>;
  signal?: AbortSignal;
}

function buildUrl(url: string, params?: RequestOptions["params"]): string {
  if (!params) return url;
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== "") search.set(key, String(value));
  }
  const query = search.toString();
  return query ? `${url}${url.includes("?") ? "&" : "?"}${query}` : url;
}

async function request<T>(url: string, options: RequestOptions = {}): Promise<T> {
  const method = (options.method ?? "GET").toUpperCase();
  const headers: Record<string, string> = { Accept: "application/json" };
  if (!SAFE_METHODS.has(method)) {
    let token = readCookie("csrftoken");
    if (!token) {
      // GET /api/auth/me/ sets the csrftoken cookie, signed in or not (204 then).
      await fetch(CSRF_BOOTSTRAP_URL, { credentials: "same-origin", headers }).catch(() => undefined);
      token = readCookie("csrftoken");
    }
    if (token) headers["X-CSRFToken"] = token;
  }
  let body: string | undefined;
  if (options.body !== undefined) {
    headers["Content-Type"] = "application/json";
    body = JSON.stringify(options.body);
  }
  const response = await fetch(buildUrl(url, options.params), {
    method,
    headers,
    body,
    credentials: "same-origin",
    signal: options.signal,
  });
  const data = await parseBody(response);
  if (!response.ok) {
    throw new ApiError(response.status, errorMessage(data, `${response.status} ${response.statusText}`.trim()), data);
  }
  return data as T;
}

export const api = {
  get: <T>(url: string, options?: Omit<RequestOptions, "method" | "body">) => request<T>(url, { ...options, method: "GET" }),
  post: <T>(url: string, body?: unknown, options?: Omit<RequestOptions, "method" | "body">) =>
    request<T>(url, { ...options, method: "POST", body }),
  put: <T>(url: string, body?: unknown, options?: Omit<RequestOptions, "method" | "body">) =>
    request<T>(url, { ...options, method: "PUT", body }),
  patch: <T>(url: string, body?: unknown, options?: Omit<RequestOptions, "method" | "body">) =>
    request<T>(url, { ...options, method: "PATCH", body }),
  delete: <T>(url: string, options?: Omit<RequestOptions, "method" | "body">) =>
    request<T>(url, { ...options, method: "DELETE" }),
};

export function isAuthError(error: unknown): boolean {
  return error instanceof ApiError && (error.status === 401 || error.status === 403);
}
