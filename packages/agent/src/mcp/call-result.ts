import type { CallToolResult, ContentBlock } from "@modelcontextprotocol/sdk/types.js";
import type { ToolImage, ToolResult } from "../tools/types.js";

/** Base64 characters of one image kept as an image part (≈ 3.75 MB decoded, under the providers' 5 MB limit). */
const MAX_IMAGE_BASE64_CHARS = 5_000_000;
const MAX_IMAGES = 8;

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
      if (images.length >= MAX_IMAGES) return `[${block.mimeType} image omitted: at most ${MAX_IMAGES} images are kept per result]`;
      if (block.data.length > MAX_IMAGE_BASE64_CHARS) return `[${block.mimeType} image omitted: ${Math.round((block.data.length * 3) / 4 / 1024)} KB is too large]`;
      images.push({ data: block.data, mimeType: block.mimeType });
      return undefined;
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
