import { readFileSync } from "node:fs";

/** `hermes-gateway <version>`, from the repository's package.json (same depth from src/ and dist/). */
export function versionLine(): string {
  const text = readFileSync(new URL("../../../../package.json", import.meta.url), "utf8");
  const manifest = JSON.parse(text) as { name?: unknown; version?: unknown };
  const name = typeof manifest.name === "string" ? manifest.name : "hermes-gateway";
  const version = typeof manifest.version === "string" ? manifest.version : "unknown";
  return `${name} ${version}`;
}
