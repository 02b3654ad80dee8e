import { describe, expect, it } from "vitest";
import { mcpToolName } from "./tool-name.js";

describe("mcpToolName", () => {
  it("makes every character outside [A-Za-z0-9_] an underscore", () => {
    expect(mcpToolName("my-files", "read.file/v2")).toBe("mcp_my_files_read_file_v2");
    expect(mcpToolName("gh", "créer issue")).toBe("mcp_gh_cr_er_issue");
  });

  it("cuts to the registry's 64 characters", () => {
    const name = mcpToolName("server", "x".repeat(100));
    expect(name).toHaveLength(64);
    expect(name.startsWith("mcp_server_xxx")).toBe(true);
  });
});
