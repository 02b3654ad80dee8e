import { describe, expect, it } from "vitest";
import type { Logger } from "../observability/logger.js";
import type { AnyToolDefinition } from "../tools/types.js";
import { MemoryProvider } from "./memory-provider.js";
import { callProvider, notifyProvider } from "./provider-calls.js";

class NamedProvider extends MemoryProvider {
  readonly name = "plugin";
  async isAvailable(): Promise<boolean> {
    return true;
  }
  async initialize(): Promise<void> {}
  getToolSchemas(): AnyToolDefinition[] {
    return [];
  }
}

function collect(lines: string[]): Logger {
  const logger: Logger = {
    debug: () => {},
    info: () => {},
    warn: (message, fields) => lines.push(`${message} ${JSON.stringify(fields)}`),
    error: () => {},
    child: () => logger,
  };
  return logger;
}

describe("provider calls", () => {
  const provider = new NamedProvider();

  it("returns the hook's value", async () => {
    expect(await callProvider(collect([]), provider, "prefetch", async () => "recalled", 1_000)).toEqual({ ok: true, value: "recalled" });
    expect(await callProvider(collect([]), provider, "syncTurn", () => 7, 1_000)).toEqual({ ok: true, value: 7 });
  });

  it("turns a synchronous throw, a rejection and a hang into a logged failure", async () => {
    const lines: string[] = [];
    const logger = collect(lines);
    const throwing = (): never => {
      throw new Error("sync boom");
    };
    expect(await callProvider(logger, provider, "a", throwing, 1_000)).toEqual({ ok: false });
    expect(await callProvider(logger, provider, "b", () => Promise.reject(new Error("async boom")), 1_000)).toEqual({ ok: false });
    expect(await callProvider(logger, provider, "c", () => new Promise<never>(() => {}), 5)).toEqual({ ok: false });
    expect(lines).toEqual([
      'memory provider hook failed {"provider":"plugin","hook":"a","error":"sync boom"}',
      'memory provider hook failed {"provider":"plugin","hook":"b","error":"async boom"}',
      'memory provider hook timed out {"provider":"plugin","hook":"c","timeoutMs":5}',
    ]);
  });

  it("logs event hooks that throw or that a plugin made async and rejected", async () => {
    const lines: string[] = [];
    notifyProvider(collect(lines), provider, "onTurnStart", () => {
      throw new Error("now");
    });
    notifyProvider(collect(lines), provider, "onTurnEnd", () => Promise.reject(new Error("later")));
    notifyProvider(collect(lines), provider, "onTurnEnd", () => undefined);
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines).toEqual([
      'memory provider hook failed {"provider":"plugin","hook":"onTurnStart","error":"now"}',
      'memory provider hook failed {"provider":"plugin","hook":"onTurnEnd","error":"later"}',
    ]);
  });
});
