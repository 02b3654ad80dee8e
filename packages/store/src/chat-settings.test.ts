import { afterEach, describe, expect, it } from "vitest";
import { STORE_DIALECTS, storeFixtures } from "./test-fixtures.js";

describe.each(STORE_DIALECTS)("%s", (dialect) => {
  const fixtures = storeFixtures(dialect);
  afterEach(() => fixtures.cleanup());

  describe("chat settings", () => {
    it("is undefined until set, then returns the latest value per chat", async () => {
      const { store } = await fixtures.openNew();
      expect(await store.chatSettings.get("telegram", "-100")).toBeUndefined();
      await store.chatSettings.set("telegram", "-100", { mentionMode: "all" });
      await store.chatSettings.set("telegram", "-200", { mentionMode: "mention" });
      expect(await store.chatSettings.get("telegram", "-100")).toEqual({ mentionMode: "all" });
      await store.chatSettings.set("telegram", "-100", { mentionMode: "mention" });
      expect(await store.chatSettings.get("telegram", "-100")).toEqual({ mentionMode: "mention" });
      expect(await store.chatSettings.get("discord", "-100")).toBeUndefined();
    });
  });
});
