import { afterEach, describe, expect, it } from "vitest";
import type { Store } from "./store.js";
import { STORE_DIALECTS, storeFixtures } from "./test-fixtures.js";

describe.each(STORE_DIALECTS)("%s", (dialect) => {
  const fixtures = storeFixtures(dialect);
  afterEach(() => fixtures.cleanup());

  async function inbound(store: Store, messageId: string): Promise<number> {
    const { record } = await store.inbound.recordIfNew({ platform: "telegram", messageId, payload: "{}", status: "running" });
    return record.id;
  }

  describe("stream parts", () => {
    it("lists a reply's message ids by part, whatever order they were recorded in, and nothing for another reply", async () => {
      const { store } = await fixtures.openNew();
      const first = await inbound(store, "m1");
      const second = await inbound(store, "m2");
      expect(await store.streamParts.list(first)).toEqual([]);
      await store.streamParts.record(first, 2, "msg-c");
      await store.streamParts.record(first, 0, "msg-a");
      await store.streamParts.record(second, 0, "other");
      await store.streamParts.record(first, 1, "msg-b");
      expect(await store.streamParts.list(first)).toEqual(["msg-a", "msg-b", "msg-c"]);
      expect(await store.streamParts.list(second)).toEqual(["other"]);
    });

    it("replaces a part recorded again instead of adding one", async () => {
      const { store } = await fixtures.openNew();
      const id = await inbound(store, "m1");
      await store.streamParts.record(id, 0, "msg-a");
      await store.streamParts.record(id, 0, "msg-a2");
      expect(await store.streamParts.list(id)).toEqual(["msg-a2"]);
    });

    it("clears one reply's parts only", async () => {
      const { store } = await fixtures.openNew();
      const first = await inbound(store, "m1");
      const second = await inbound(store, "m2");
      await store.streamParts.record(first, 0, "msg-a");
      await store.streamParts.record(first, 1, "msg-b");
      await store.streamParts.record(second, 0, "other");
      await store.streamParts.clear(first);
      expect(await store.streamParts.list(first)).toEqual([]);
      expect(await store.streamParts.list(second)).toEqual(["other"]);
      await store.streamParts.clear(first);
    });

    it("are seen by another store on the same database, as the final reply may go out from another process", async () => {
      const { store: worker, file } = await fixtures.openNew();
      const gateway = await fixtures.open(file);
      const id = await inbound(worker, "m1");
      await gateway.streamParts.record(id, 0, "msg-a");
      expect(await worker.streamParts.list(id)).toEqual(["msg-a"]);
    });

    it("refuses a part that is not a whole number from 0", async () => {
      const { store } = await fixtures.openNew();
      const id = await inbound(store, "m1");
      await expect(store.streamParts.record(id, -1, "msg")).rejects.toThrow(RangeError);
      await expect(store.streamParts.record(id, 1.5, "msg")).rejects.toThrow(RangeError);
      expect(await store.streamParts.list(id)).toEqual([]);
    });
  });
});
