import { preparedQuery, type Param } from "./prepared-query.js";
import type { StoreContext } from "./store-context.js";

export type MentionMode = "mention" | "all";

export interface ChatSettings {
  /** "mention": in groups the bot answers only when addressed; "all": it answers every message. */
  mentionMode: MentionMode;
}

export interface ChatSettingsRepository {
  /** Undefined when the chat has never been configured (the gateway's defaults apply). */
  get(platform: string, chatId: string): Promise<ChatSettings | undefined>;
  set(platform: string, chatId: string, settings: ChatSettings): Promise<void>;
}

export function createChatSettingsRepository(ctx: StoreContext): ChatSettingsRepository {
  const { db, exec } = ctx;
  return {
    async get(platform, chatId) {
      const row = await exec.first(settingsOfChat(db, { platform, chatId }));
      if (row === undefined) return undefined;
      return { mentionMode: row.mention_mode === "all" ? "all" : "mention" };
    },

    async set(platform, chatId, settings) {
      const now = ctx.now();
      await exec.run(
        db
          .insertInto("chat_settings")
          .values({ platform, chat_id: chatId, mention_mode: settings.mentionMode, updated_at: now })
          .onConflict((oc) => oc.columns(["platform", "chat_id"]).doUpdateSet({ mention_mode: settings.mentionMode, updated_at: now })),
      );
    },
  };
}

// Read for every group message (prepared-query.ts).
const settingsOfChat = preparedQuery((db, p: Param<{ platform: string; chatId: string }>) =>
  db.selectFrom("chat_settings").select("mention_mode").where("platform", "=", p("platform")).where("chat_id", "=", p("chatId")),
);
