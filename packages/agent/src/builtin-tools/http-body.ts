export interface CappedBody {
  bytes: Uint8Array;
  /** True when the body was longer than the cap and the rest was not downloaded. */
  truncated: boolean;
}

export type BodyKind = "html" | "json" | "text" | "unsupported";

/** Reads at most `maxBytes` of a response body, cancelling the stream instead of downloading the remainder. */
export async function readCappedBody(response: Response, maxBytes: number): Promise<CappedBody> {
  if (response.body === null) return { bytes: new Uint8Array(0), truncated: false };
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (size + value.byteLength > maxBytes) {
      chunks.push(value.subarray(0, maxBytes - size));
      size = maxBytes;
      truncated = true;
      await reader.cancel().catch(() => undefined);
      break;
    }
    chunks.push(value);
    size += value.byteLength;
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return { bytes, truncated };
}

/** Releases a body we will not read, so the connection is not held open. */
export async function discardBody(response: Response): Promise<void> {
  await response.body?.cancel().catch(() => undefined);
}

export function mediaType(contentType: string | null): string {
  return (contentType ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
}

export function classifyMediaType(type: string): BodyKind {
  if (type === "text/html" || type === "application/xhtml+xml") return "html";
  if (type === "application/json" || type.endsWith("+json")) return "json";
  if (type.startsWith("text/")) return "text";
  // Feeds, XML documents and scripts are text in everything but name.
  if (type === "application/xml" || type.endsWith("+xml") || type === "application/javascript") return "text";
  return "unsupported";
}

/** Decodes with the charset the server declared, falling back to UTF-8 for missing or unknown labels. */
export function decodeBody(bytes: Uint8Array, contentType: string | null): string {
  const charset = /charset\s*=\s*"?([^";\s]+)/i.exec(contentType ?? "")?.[1];
  return decoderFor(charset ?? "utf-8").decode(bytes);
}

function decoderFor(label: string) {
  try {
    return new TextDecoder(label);
  } catch {
    return new TextDecoder("utf-8");
  }
}
