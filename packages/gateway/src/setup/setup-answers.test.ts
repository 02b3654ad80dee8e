import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { configUpdatesFor, readSetupContext, shadowedSettingsNote, type SetupAnswers } from "./setup-answers.js";

let root = "";
let home = "";
beforeEach(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), "hermes-setup-answers-"));
  home = path.join(root, "state");
  await mkdir(home);
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const hostedModel: SetupAnswers = { model: { model: "anthropic/claude-sonnet-4-5", apiKey: "sk-ant-new" } };

async function noteFor(answers: SetupAnswers, env: Record<string, string>): Promise<string | undefined> {
  const context = await readSetupContext({ env: { HERMES_HOME: home, ...env }, cwd: root });
  return shadowedSettingsNote(configUpdatesFor(answers), context);
}

describe("shadowedSettingsNote", () => {
  it("says that HERMES_API_KEY from the environment or .env wins over a saved provider key", async () => {
    const expected = "HERMES_API_KEY set in the environment or .env wins over the saved ANTHROPIC_API_KEY; unset it there for the saved key to be used";
    expect(await noteFor(hostedModel, { HERMES_API_KEY: "sk-old" })).toBe(expected);
    await writeFile(path.join(root, ".env"), "HERMES_API_KEY=sk-old\n");
    expect(await noteFor(hostedModel, {})).toBe(expected);
  });

  it("says nothing when HERMES_API_KEY is only in config.yaml, where setup removes it", async () => {
    await writeFile(path.join(home, "config.yaml"), "HERMES_API_KEY: sk-old\n");
    expect(await noteFor(hostedModel, {})).toBeUndefined();
  });

  it("names saved settings the environment also sets, on the same line, and never a value", async () => {
    const note = await noteFor({ ...hostedModel, telegram: { token: "123:new" } }, { HERMES_MODEL: "openai/gpt-4o", TELEGRAM_BOT_TOKEN: "123:old", HERMES_API_KEY: "sk-old" });
    expect(note).toBe(
      "also set in the environment or .env, which win over config.yaml: HERMES_MODEL, TELEGRAM_BOT_TOKEN; HERMES_API_KEY set in the environment or .env wins over the saved ANTHROPIC_API_KEY; unset it there for the saved key to be used",
    );
    for (const secret of ["sk-ant-new", "sk-old", "123:new", "123:old"]) expect(note).not.toContain(secret);
  });
});
