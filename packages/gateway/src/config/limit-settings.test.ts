import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadConfig, type ConfigResult } from "./load-config.js";
import { SETTINGS } from "./settings.js";

let dir: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "hermes-limit-config-"));
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

function load(env: Record<string, string>): Promise<ConfigResult> {
  return loadConfig({ env: { HERMES_HOME: dir, ...env }, cwd: dir, homeDir: dir, knownTools: ["think"], defaultTools: ["think"] });
}

async function errorsOf(env: Record<string, string>): Promise<{ setting: string; message: string }[]> {
  const result = await load(env);
  if (result.ok) throw new Error("expected the configuration to be rejected");
  return result.errors;
}

const CUSTOM = { HERMES_MODEL: "local", HERMES_BASE_URL: "http://127.0.0.1:11434/v1" };

describe("intake limits and budget settings", () => {
  it("limits 20 messages per user per minute and 10 waiting per conversation, with no budget, by default", async () => {
    const result = await load({});
    expect(result.ok && result.config.limits).toEqual({ ratePerMinute: 20, maxQueued: 10 });
  });

  it("reads the limits and the budget", async () => {
    const result = await load({ HERMES_RATE_LIMIT: "5", HERMES_MAX_QUEUED: "3", HERMES_DAILY_BUDGET_USD: "1.50" });
    expect(result.ok && result.config.limits).toEqual({ ratePerMinute: 5, maxQueued: 3, dailyBudgetUsd: 1.5 });
  });

  it.each(["off", "OFF", "0"])("turns a limit off with %j", async (value) => {
    const result = await load({ HERMES_RATE_LIMIT: value, HERMES_MAX_QUEUED: value });
    expect(result.ok && result.config.limits).toEqual({});
  });

  it("reads them from config.yaml too", async () => {
    await fs.writeFile(path.join(dir, "config.yaml"), "HERMES_RATE_LIMIT: 7\nHERMES_DAILY_BUDGET_USD: 2\n");
    const result = await load({});
    expect(result.ok && result.config.limits).toEqual({ ratePerMinute: 7, maxQueued: 10, dailyBudgetUsd: 2 });
  });

  it.each(["-1", "1.5", "twenty", "10001"])("rejects HERMES_RATE_LIMIT=%j, naming the setting", async (value) => {
    const errors = await errorsOf({ HERMES_RATE_LIMIT: value });
    expect(errors).toEqual([{ setting: "HERMES_RATE_LIMIT", message: expect.stringMatching(/^must be a whole number of messages per user per minute from 1 to 10000, or off/) }]);
    expect(errors[0]?.message).toContain(JSON.stringify(value));
  });

  it.each(["-2", "many", "1001"])("rejects HERMES_MAX_QUEUED=%j, naming the setting", async (value) => {
    const errors = await errorsOf({ HERMES_MAX_QUEUED: value });
    expect(errors).toEqual([{ setting: "HERMES_MAX_QUEUED", message: expect.stringMatching(/^must be a whole number of waiting messages per conversation from 1 to 1000, or off/) }]);
  });

  it.each(["0", "-1", "$1", "1,50", "lots", "1e3", "2000000"])("rejects HERMES_DAILY_BUDGET_USD=%j, naming the setting", async (value) => {
    const errors = await errorsOf({ HERMES_DAILY_BUDGET_USD: value });
    expect(errors).toEqual([{ setting: "HERMES_DAILY_BUDGET_USD", message: expect.stringMatching(/^must be an amount in USD greater than 0/) }]);
  });

  it("prices the custom endpoint's model", async () => {
    const result = await load({ ...CUSTOM, HERMES_MODEL_PRICE: "0.15, 0.6" });
    expect(result.ok && result.config.model?.price).toEqual({ input: 0.15, output: 0.6 });
  });

  it("leaves a custom model free with the default 0,0", async () => {
    const result = await load({ ...CUSTOM, HERMES_MODEL_PRICE: "0,0" });
    expect(result.ok && result.config.model).not.toHaveProperty("price");
  });

  it.each(["1", "1,2,3", "a,b", "-1,2", "1;2", ",2", "200000,1"])("rejects HERMES_MODEL_PRICE=%j, naming the setting", async (value) => {
    const errors = await errorsOf({ ...CUSTOM, HERMES_MODEL_PRICE: value });
    expect(errors).toEqual([{ setting: "HERMES_MODEL_PRICE", message: expect.stringMatching(/^must be `<input>,<output>`: two amounts in USD per million tokens/) }]);
  });

  it("warns that a price without HERMES_BASE_URL has no effect (catalogue models keep pi-ai's prices)", async () => {
    const result = await load({ HERMES_MODEL: "anthropic/claude-sonnet-4-5", HERMES_MODEL_PRICE: "1,2" });
    expect(result.ok && result.config.model).not.toHaveProperty("price");
    expect(result.warnings).toEqual([expect.stringContaining("HERMES_MODEL_PRICE is set but HERMES_BASE_URL is not")]);
  });

  it("lists the four settings with their defaults", () => {
    const defaults = Object.fromEntries(SETTINGS.map((setting) => [setting.name, setting.default]));
    expect(defaults).toMatchObject({ HERMES_RATE_LIMIT: "20", HERMES_MAX_QUEUED: "10", HERMES_DAILY_BUDGET_USD: "", HERMES_MODEL_PRICE: "0,0" });
  });
});
