import { createMetricsRegistry } from "@hermes/agent";
import { describe, expect, it } from "vitest";
import { createStoreUpMetric } from "./gateway-metrics.js";

async function storeUpWith(checkWritable: () => Promise<{ ok: true } | { ok: false; error: string }>): Promise<string> {
  const registry = createMetricsRegistry();
  createStoreUpMetric(registry, { checkWritable });
  return /^hermes_store_up (\d)$/m.exec(await registry.renderPrometheus())?.[1] ?? "missing";
}

describe("hermes_store_up", () => {
  it("is 1 while the database takes writes and 0 while it refuses them", async () => {
    expect(await storeUpWith(async () => ({ ok: true }))).toBe("1");
    expect(await storeUpWith(async () => ({ ok: false, error: "the database is closed" }))).toBe("0");
  });

  it("is 0, not the last value, for a database that hangs or a probe that throws", async () => {
    const registry = createMetricsRegistry();
    let hang = false;
    createStoreUpMetric(registry, {
      checkWritable: () => (hang ? new Promise(() => undefined) : Promise.resolve({ ok: true })),
    });
    expect(await registry.renderPrometheus()).toContain("hermes_store_up 1\n");
    hang = true;
    expect(await registry.renderPrometheus()).toContain("hermes_store_up 0\n");
    expect(await storeUpWith(async () => Promise.reject(new Error("pool ended")))).toBe("0");
  });
});
