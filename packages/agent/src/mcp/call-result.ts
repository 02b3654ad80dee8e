import type { CallToolResult, ContentBlock } from "@modelcontextprotocol/sdk/types.js";
import type { ToolImage, ToolResult } from "../tools/types.js";

/** Base64 characters of one image kept as an image part (≈ 3.75 MB decoded, under the providers' 5 MB limit). */
const MAX_IMAGE_BASE64_CHARS = 5_000_000;
/**
 * All the images of one result: Anthropic refuses a whole request over 32 MB, so a result keeps to the same 20 MB of
 * base64 a chat message's images may take, leaving room for the conversation.
 */
const MAX_RESULT_IMAGE_BASE64_CHARS = 20_000_000;
const MAX_IMAGES = 8;

/**
 * The formats every vision provider takes, by their first bytes. A server's mimeType is only its word: an SVG, or data
 * that is not the image it claims, would make the provider refuse the request, and with it every later turn that
 * still carries this result.
 */
const IMAGE_SIGNATURES: ReadonlyArray<{ mimeType: string; test: (head: Buffer) => boolean }> = [
  { mimeType: "image/png", test: (head) => head.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) },
  { mimeType: "image/jpeg", test: (head) => head.subarray(0, 3).equals(Buffer.from([0xff, 0xd8, 0xff])) },
  { mimeType: "image/gif", test: (head) => /^GIF8[79]a/.test(head.toString("latin1", 0, 6)) },
  { mimeType: "image/webp", test: (head) => head.toString("latin1", 0, 4) === "RIFF" && head.toString("latin1", 8, 12) === "WEBP" },
];

/**
 * An MCP tool result as the agent's tool result: text stays text, images become image parts (up to a size and count the
 * providers take), and what the model cannot take (audio, binary resources) is described instead of dropped silently.
 */
export function toToolResult(result: CallToolResult, origin: { server: string; tool: string }): ToolResult {
  const texts: string[] = [];
  const images: ToolImage[] = [];
  for (const block of result.content) {
    const kept = keepBlock(block, images);
    if (kept !== undefined) texts.push(kept);
  }
  if (texts.length === 0 && result.content.length === 0 && result.structuredContent !== undefined) {
    texts.push(JSON.stringify(result.structuredContent, null, 2));
  }
  const content = texts.join("\n\n") || (images.length > 0 ? `(${images.length} image${images.length === 1 ? "" : "s"})` : "(no output)");
  return {
    content,
    ...(result.isError === true ? { isError: true } : {}),
    ...(images.length > 0 ? { images } : {}),
    details: { mcpServer: origin.server, mcpTool: origin.tool },
  };
}

function keepBlock(block: ContentBlock, images: ToolImage[]): string | undefined {
  switch (block.type) {
    case "text":
      return block.text;
    case "image":
      return keepImage(block.data, block.mimeType, images);
    case "audio":
      return `[${block.mimeType} audio omitted: audio is not passed to the model]`;
    case "resource_link":
      return `[resource ${block.name}: ${block.uri}${block.description ? ` — ${block.description}` : ""}]`;
    case "resource": {
      const resource = block.resource;
      if ("text" in resource && typeof resource.text === "string") return `[resource ${resource.uri}]\n${resource.text}`;
      return `[binary resource ${resource.uri}${resource.mimeType ? ` (${resource.mimeType})` : ""} omitted]`;
    }
  }
}

/** Adds the image to `images`, or says why it was left out. */
function keepImage(data: string, declared: string, images: ToolImage[]): string | undefined {
  if (images.length >= MAX_IMAGES) return `[${declared} image omitted: at most ${MAX_IMAGES} images are kept per result]`;
  const size = `${Math.round((data.length * 3) / 4 / 1024)} KB`;
  if (data.length > MAX_IMAGE_BASE64_CHARS) return `[${declared} image omitted: ${size} is too large]`;
  const used = images.reduce((sum, image) => sum + image.data.length, 0);
  if (used + data.length > MAX_RESULT_IMAGE_BASE64_CHARS) return `[${declared} image omitted: ${size} more would pass the ${MAX_RESULT_IMAGE_BASE64_CHARS / 1_000_000} MB of images one result may carry]`;
  const mimeType = formatOf(data);
  if (mimeType === undefined) return `[${declared} image omitted: not a PNG, JPEG, GIF or WebP picture]`;
  images.push({ data, mimeType });
  return undefined;
}

function formatOf(base64: string): string | undefined {
  const head = Buffer.from(base64.slice(0, 16), "base64");
  return IMAGE_SIGNATURES.find((signature) => signature.test(head))?.mimeType;
}
