import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readDotEnvFile } from "./dotenv-file.js";

let dir: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "hermes-"));
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

describe("readDotEnvFile", () => {
  it("reads variables with quotes, comments and Windows line endings", async () => {
    const file = path.join(dir, ".env");
    await fs.writeFile(file, '\uFEFFHERMES_MODEL=openai/gpt-4o\r\n# a comment\r\nHERMES_SYSTEM_PROMPT="Be brief. Be kind."\r\n');
    const result = await readDotEnvFile(file);
    expect(result).toEqual({
      ok: true,
      vars: { HERMES_MODEL: "openai/gpt-4o", HERMES_SYSTEM_PROMPT: "Be brief. Be kind." },
    });
  });

  it("treats a missing file as no variables", async () => {
    expect(await readDotEnvFile(path.join(dir, ".env"))).toEqual({ ok: true, vars: {} });
  });

  it("reports a .env that is a folder, naming the file", async () => {
    const file = path.join(dir, ".env");
    await fs.mkdir(file);
    expect(await readDotEnvFile(file)).toEqual({ ok: false, issue: { setting: file, message: "is a folder, not a file" } });
  });
});
