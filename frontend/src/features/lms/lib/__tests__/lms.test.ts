import { describe, expect, it } from "vitest";
import { parseDeploymentIds, registrationInput } from "../lms";

const fields = {
  name: " Canvas ",
  issuer: "https://canvas.instructure.com",
  client_id: "10000000000042",
  deployment_ids: "7:abc, 8:def\n7:abc\n",
  auth_login_url: "https://sso.canvaslms.com/api/lti/authorize_redirect",
  auth_token_url: "https://sso.canvaslms.com/login/oauth2/token",
  key_set_url: "https://sso.canvaslms.com/api/lti/security/jwks",
};

describe("LMS registration form", () => {
  it("reads deployment ids by line or comma, without blanks or repeats", () => {
    expect(parseDeploymentIds("7:abc, 8:def\n\n7:abc")).toEqual(["7:abc", "8:def"]);
    expect(parseDeploymentIds("  ")).toEqual([]);
  });

  it("trims the fields and refuses missing ones by name", () => {
    const ok = registrationInput(fields);
    expect(ok).toEqual({ ok: { ...fields, name: "Canvas", deployment_ids: ["7:abc", "8:def"] } });
    expect(registrationInput({ ...fields, client_id: " ", key_set_url: "" })).toEqual({ error: "Fill in: client_id, key_set_url" });
    expect("error" in registrationInput({ ...fields, deployment_ids: ", ," })).toBe(true);
  });
});
