import { describe, expect, it } from "vitest";
import { RED_DOT_PNG } from "../../../../test/fakes/mcp/fake-tools.mjs";
import { toToolResult } from "./call-result.js";

const origin = { server: "s", tool: "t" };

describe("toToolResult", () => {
  it("keeps text and images, and describes what the model cannot take", () => {
    const result = toToolResult(
      {
        content: [
          { type: "text", text: "first" },
          { type: "image", data: RED_DOT_PNG, mimeType: "image/png" },
          { type: "audio", data: "AAAA", mimeType: "audio/wav" },
          { type: "resource_link", name: "readme", uri: "file:///readme.md" },
          { type: "resource", resource: { uri: "file:///a.txt", text: "inline text" } },
          { type: "resource", resource: { uri: "file:///b.bin", blob: "AAAA", mimeType: "application/octet-stream" } },
        ],
      },
      origin,
    );
    expect(result.content.split("\n\n")).toEqual([
      "first",
      "[audio/wav audio omitted: audio is not passed to the model]",
      "[resource readme: file:///readme.md]",
      "[resource file:///a.txt]\ninline text",
      "[binary resource file:///b.bin (application/octet-stream) omitted]",
    ]);
    expect(result.images).toEqual([{ data: RED_DOT_PNG, mimeType: "image/png" }]);
    expect(result.isError).toBeUndefined();
    expect(result.details).toEqual({ mcpServer: "s", mcpTool: "t" });
  });

  it("describes an image too large to send instead of keeping it", () => {
    const result = toToolResult({ content: [{ type: "image", data: "A".repeat(6_000_000), mimeType: "image/jpeg" }] }, origin);
    expect(result.images).toBeUndefined();
    expect(result.content).toBe("[image/jpeg image omitted: 4395 KB is too large]");
  });

  it("uses structured content when there is no content, and keeps isError", () => {
    expect(toToolResult({ content: [], structuredContent: { n: 1 }, isError: true }, origin)).toMatchObject({ content: '{\n  "n": 1\n}', isError: true });
    expect(toToolResult({ content: [] }, origin).content).toBe("(no output)");
    expect(toToolResult({ content: [{ type: "image", data: RED_DOT_PNG, mimeType: "image/png" }] }, origin).content).toBe("(1 image)");
  });

  it("keeps only pictures the providers take, named by their bytes rather than the server's word", () => {
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>').toString("base64");
    const result = toToolResult(
      {
        content: [
          { type: "image", data: svg, mimeType: "image/svg+xml" },
          { type: "image", data: "AAAAAAAA", mimeType: "image/png" },
          { type: "image", data: RED_DOT_PNG, mimeType: "image/jpeg" },
        ],
      },
      origin,
    );
    expect(result.images).toEqual([{ data: RED_DOT_PNG, mimeType: "image/png" }]);
    expect(result.content.split("\n\n")).toEqual([
      "[image/svg+xml image omitted: not a PNG, JPEG, GIF or WebP picture]",
      "[image/png image omitted: not a PNG, JPEG, GIF or WebP picture]",
    ]);
  });

  it("keeps a result's images under the size one request can carry", () => {
    // Each under the 5 MB limit of one image; five of them would pass what a whole request may hold.
    const large = RED_DOT_PNG + "A".repeat(4_500_000);
    const result = toToolResult({ content: Array.from({ length: 5 }, () => ({ type: "image" as const, data: large, mimeType: "image/png" })) }, origin);
    expect(result.images).toHaveLength(4);
    expect(result.content).toBe("[image/png image omitted: 3296 KB more would pass the 20 MB of images one result may carry]");
  });
});
