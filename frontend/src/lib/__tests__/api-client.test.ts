// @vitest-environment jsdom
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { api, ApiError, errorMessage, readCookie } from "../api-client";

type Call = { url: string; init: RequestInit };

function mockFetch(responder: (url: string, init: RequestInit) => Response) {
  const calls: Call[] = [];
  vi.stubGlobal(
    "fetch",
    vi.fn(async (url: string, init: RequestInit = {}) => {
      calls.push({ url, init });
      return responder(url, init);
    }),
  );
  return calls;
}
const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
const header = (call: Call | undefined, name: string) => (call?.init.headers as Record<string, string>)[name];

function clearCookies() {
  for (const part of document.cookie.split(";")) {
    const name = part.split("=")[0]?.trim();
    if (name) document.cookie = `${name}=; expires=Thu, 01 Jan 1970 00:00:00 GMT; path=/`;
  }
}

beforeEach(clearCookies);
afterEach(() => vi.unstubAllGlobals());

describe("api client", () => {
  it("sends the csrftoken cookie as X-CSRFToken on unsafe methods", async () => {
    document.cookie = "sessionid=abc; path=/";
    document.cookie = "csrftoken=tok123; path=/";
    const calls = mockFetch(() => json({ id: 9 }, 201));
    const job = await api.post<{ id: number }>("/api/jobs/", { nodes: 10 });
    expect(job.id).toBe(9);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.init.method).toBe("POST");
    expect(calls[0]!.init.credentials).toBe("same-origin");
    expect(header(calls[0], "X-CSRFToken")).toBe("tok123");
    expect(header(calls[0], "Content-Type")).toBe("application/json");
    expect(JSON.parse(String(calls[0]!.init.body))).toEqual({ nodes: 10 });
  });

  it("sends no CSRF header on GET and encodes query params", async () => {
    document.cookie = "csrftoken=tok123; path=/";
    const calls = mockFetch(() => json({ lines: [], next_after: null }));
    await api.get("/api/jobs/3/logs/", { params: { after: 0, node: undefined, limit: 1000 } });
    expect(calls[0]!.url).toBe("/api/jobs/3/logs/?after=0&limit=1000");
    expect(calls[0]!.init.method).toBe("GET");
    expect(header(calls[0], "X-CSRFToken")).toBeUndefined();
  });

  it("fetches /api/auth/me/ first when the csrftoken cookie is missing", async () => {
    const calls = mockFetch((url) => {
      if (url === "/api/auth/me/") {
        document.cookie = "csrftoken=fresh; path=/"; // what Set-Cookie would do
        return new Response(null, { status: 204 }); // no one signed in
      }
      return json({ id: 1, username: "ada", role: "student" });
    });
    await api.post("/api/auth/login/", { username: "ada", password: "pw" });
    expect(calls.map((c) => c.url)).toEqual(["/api/auth/me/", "/api/auth/login/"]);
    expect(header(calls[1], "X-CSRFToken")).toBe("fresh");
  });

  it("throws ApiError with the status and DRF detail", async () => {
    mockFetch(() => json({ detail: "Invalid credentials." }, 400));
    const error = await api.post("/api/auth/login/", {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(400);
    expect((error as ApiError).message).toBe("Invalid credentials.");
  });

  it("accepts empty bodies (204)", async () => {
    document.cookie = "csrftoken=t; path=/";
    mockFetch(() => new Response(null, { status: 204 }));
    await expect(api.post("/api/auth/logout/")).resolves.toBeNull();
  });
});

describe("helpers", () => {
  it("reads a cookie among others", () => {
    expect(readCookie("csrftoken", "a=1; csrftoken=x%3Dy; b=2")).toBe("x=y");
    expect(readCookie("csrftoken", "a=1")).toBeNull();
  });

  it("turns DRF field errors into one message", () => {
    expect(errorMessage({ nodes: ["Ensure this value is less than or equal to 100."] }, "x")).toBe(
      "nodes: Ensure this value is less than or equal to 100.",
    );
    expect(errorMessage({ non_field_errors: ["Bad."] }, "x")).toBe("Bad.");
    expect(errorMessage("<html>oops</html>", "fallback")).toBe("fallback");
  });
});
