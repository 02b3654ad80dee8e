import { isStdioServer, type McpServerConfig } from "./types.js";

const MIN_SECRET_LENGTH = 4;
const MASK = "***";

/**
 * Hides a server's configured env values and header values (and a header's token after "Bearer ") in the texts that
 * reach logs and status: a server's stderr or an HTTP error body may echo them.
 */
export class SecretMask {
  private readonly values: string[];

  constructor(config: McpServerConfig) {
    const raw = isStdioServer(config) ? Object.values(config.env ?? {}) : Object.values(config.headers ?? {});
    const parts = raw.flatMap((value) => [value, value.split(" ").at(-1) ?? ""]);
    // Longest first, so a value containing another is masked whole.
    this.values = [...new Set(parts.filter((v) => v.length >= MIN_SECRET_LENGTH))].sort((a, b) => b.length - a.length);
  }

  mask(text: string): string {
    let masked = text;
    for (const value of this.values) masked = masked.split(value).join(MASK);
    return masked;
  }
}
