import { afterEach, describe, expect, it } from "vitest";
import { storeFixtures } from "../../../store/src/test-fixtures.js";
import { recordingLogger } from "../../../../test/support/recording-logger.js";
import { ManualClock } from "../outbound/manual-clock.js";
import { createCronScheduler, type CronScheduler } from "./cron-scheduler.js";

const fixtures = storeFixtures("sqlite");
const FAILED = "the scheduler could not look at the scheduled tasks; it tries again shortly";
let cron: CronScheduler | undefined;

afterEach(async () => {
  await cron?.stop();
  cron = undefined;
  await fixtures.cleanup();
});

describe("the cron scheduler while the database is away", () => {
  it("logs its first failure, then a reminder a minute later on its own clock, with the failures between at debug", async () => {
    const { store } = await fixtures.openNew();
    await store.close();
    const clock = new ManualClock();
    await clock.advance(Date.UTC(2026, 11, 2, 12, 0, 0));
    const logger = recordingLogger();
    cron = createCronScheduler({ store, queue: { enqueue: async () => undefined }, isActive: () => true, logger, clock, pollMs: 30_000 });
    cron.start();
    await clock.advance(60_000);

    const failures = logger.entries.filter((entry) => entry.message === FAILED).map((entry) => [entry.level, entry.fields.failures]);
    expect(failures).toEqual([
      ["error", 1],
      ["debug", 2],
      ["error", 3],
    ]);
  });
});
