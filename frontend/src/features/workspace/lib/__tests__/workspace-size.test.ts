import { describe, expect, it } from "vitest";
import { WORKSPACE_MAX_BYTES, workspaceTooLarge } from "../../api/update-workspace";

describe("workspaceTooLarge (checked before a save is sent)", () => {
  it("lets a workspace up to the limit through", () => {
    const files = [{ path: "app.lua", content: "x".repeat(WORKSPACE_MAX_BYTES - 10) }, { path: "b.lua", content: "y".repeat(10) }];
    expect(workspaceTooLarge({ name: "w", files })).toBeNull();
  });

  it("names the size and the limit of a 2 MB paste, and says the text is kept", () => {
    const text = workspaceTooLarge({ name: "w", files: [{ path: "app.lua", content: "x".repeat(2 * 1024 * 1024) }] });
    expect(text).toBe("not saved: the workspace would hold 2.0 MB, more than its limit of 1.0 MB; your text stays in the editor");
  });

  it("counts bytes, not characters (the server's rule)", () => {
    const content = "é".repeat(WORKSPACE_MAX_BYTES / 2 + 1); // 2 bytes each in UTF-8
    expect(workspaceTooLarge({ name: "w", files: [{ path: "app.lua", content }] })).not.toBeNull();
  });
});
