import type { Message } from "@mariozechner/pi-ai";
import { describe, expect, it } from "vitest";
import { NO_VISION_MARKER } from "./attachment-content.js";
import { noVisionNotice } from "./no-vision-notice.js";
import { IMAGE_PLACEHOLDER, TOOL_IMAGE_PLACEHOLDER, withoutImageData } from "./transcript-images.js";

const withImage: Message = {
  role: "user",
  content: [
    { type: "text", text: "what is this?\n[Image: image, photo.jpg — saved at attachments/p.jpg; attached below]" },
    { type: "image", data: "AAAA", mimeType: "image/jpeg" },
  ],
  timestamp: 1,
};
const answer: Message = {
  role: "assistant",
  content: [{ type: "text", text: "A cat." }],
  api: "openai-completions",
  provider: "custom",
  model: "m",
  usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
  stopReason: "stop",
  timestamp: 2,
};

describe("withoutImageData", () => {
  it("stores a user message's image as a line of text and leaves every other message as it was", () => {
    const [user, assistant] = withoutImageData([withImage, answer]);
    expect(user).toEqual({ role: "user", content: `what is this?\n[Image: image, photo.jpg — saved at attachments/p.jpg; attached below]\n${IMAGE_PLACEHOLDER}`, timestamp: 1 });
    expect(assistant).toBe(answer);
  });

  it("stores a tool result's image (an MCP screenshot) as a text part, keeping its text", () => {
    const screenshot: Message = {
      role: "toolResult",
      toolCallId: "c1",
      toolName: "mcp_browser_screenshot",
      content: [
        { type: "text", text: "Captured the page." },
        { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" },
      ],
      isError: false,
      timestamp: 3,
    };
    const [stored] = withoutImageData([screenshot]);
    expect(stored).toEqual({ ...screenshot, content: [{ type: "text", text: "Captured the page." }, { type: "text", text: TOOL_IMAGE_PLACEHOLDER }] });
    expect(JSON.stringify(stored)).not.toContain("iVBORw0KGgo");
  });
});

describe("noVisionNotice", () => {
  const toldBefore: Message = { role: "user", content: `[Image: image, a.jpg — saved at x; ${NO_VISION_MARKER}]`, timestamp: 0 };

  it("names the images once per conversation: not when an earlier message already carried the marker", () => {
    expect(noVisionNotice(["photo.jpg"], [answer])).toMatch(/cannot see images, so I could not look at "photo\.jpg"/);
    expect(noVisionNotice(["photo.jpg"], [toldBefore, answer])).toBeUndefined();
    expect(noVisionNotice([], [])).toBeUndefined();
  });
});
