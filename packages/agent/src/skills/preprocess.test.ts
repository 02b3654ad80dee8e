import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { promises as fs } from "node:fs";
import { preprocessSkillBody, runInlineShellCommand, type InlineShellRequest } from "./preprocess.js";
import { makeTempDir } from "./skill-fixtures.js";

let dir: string;
const signal = new AbortController().signal;

beforeEach(async () => {
  dir = await makeTempDir();
});

afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

describe("preprocessSkillBody", () => {
  it("substitutes the skill folder and session id", async () => {
    const result = await preprocessSkillBody("Run ${HERMES_SKILL_DIR}/scripts/x.sh for ${HERMES_SESSION_ID}; ${HERMES_SESSION_ID}.", {
      skillDir: "/skills/demo",
      sessionId: "abc",
      allowInlineShell: false,
      signal,
    });
    expect(result).toEqual({ text: "Run /skills/demo/scripts/x.sh for abc; abc.", inlineCommands: 0, inlineCommandsRun: 0 });
  });

  it("leaves inline shell as written, with a note, when it is disabled", async () => {
    const calls: InlineShellRequest[] = [];
    const result = await preprocessSkillBody("Branch: !`git branch --show-current`! in ${HERMES_SKILL_DIR}", {
      skillDir: dir,
      sessionId: "s",
      allowInlineShell: false,
      signal,
      runShell: async (request) => {
        calls.push(request);
        return { ok: true, output: "never" };
      },
    });
    expect(calls).toEqual([]);
    expect(result.text).toContain(`Branch: !\`git branch --show-current\`! in ${dir}`);
    expect(result.text).toMatch(/1 inline shell command .* left as written because inline shell is disabled/);
    expect(result.inlineCommandsRun).toBe(0);
  });

  it("runs inline shell in the skill folder with a scrubbed environment when enabled", async () => {
    const body = "cwd=!`pwd`! dir=!`echo \"$HERMES_SKILL_DIR\"`! session=!`echo ${HERMES_SESSION_ID}`! key=!`echo \"[$OPENAI_API_KEY]\"`! plain=!`echo \"$PLAIN\"`!";
    const result = await preprocessSkillBody(body, {
      skillDir: dir,
      sessionId: "s-1",
      allowInlineShell: true,
      signal,
      baseEnv: { PATH: process.env.PATH, OPENAI_API_KEY: "sk-secret", PLAIN: "visible" },
    });
    expect(result.text).toBe(`cwd=${dir} dir=${dir} session=s-1 key=[] plain=visible`);
    expect(result.inlineCommandsRun).toBe(5);
  });

  it("does not let a session id become part of a command line", async () => {
    const result = await preprocessSkillBody("!`echo ${HERMES_SESSION_ID}`!", {
      skillDir: dir,
      sessionId: "$(echo injected)",
      allowInlineShell: true,
      signal,
      baseEnv: { PATH: process.env.PATH },
    });
    expect(result.text).toBe("$(echo injected)");
  });

  it("reports failing commands in place", async () => {
    const result = await preprocessSkillBody("a !`echo oops >&2; exit 3`! b", {
      skillDir: dir,
      sessionId: "s",
      allowInlineShell: true,
      signal,
      baseEnv: { PATH: process.env.PATH },
    });
    expect(result.text).toBe("a [inline shell failed: exit code 3: oops] b");
  });
});

describe("runInlineShellCommand", () => {
  it("kills a command that outlives its timeout", async () => {
    const outcome = await runInlineShellCommand({ command: "sleep 30", cwd: dir, env: {}, timeoutMs: 50, signal });
    expect(outcome).toMatchObject({ ok: false, error: "timed out after 0.05s" });
  });

  it("caps long output", async () => {
    const outcome = await runInlineShellCommand({
      command: "head -c 100000 /dev/zero | tr '\\0' x",
      cwd: dir,
      env: { PATH: process.env.PATH ?? "" },
      timeoutMs: 10_000,
      signal,
    });
    expect(outcome.ok).toBe(true);
    expect(outcome.output.length).toBeLessThan(5_000);
    expect(outcome.output).toMatch(/characters omitted/);
  });
});
