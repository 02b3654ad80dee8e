import { describe, expect, it } from "vitest";
import { INTERACTION_TOKEN_LIFETIME_MS, PendingInteractions, type InteractionReplier } from "./pending-interactions.js";

function recordingReplier(): InteractionReplier & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    editReply: async (text) => (calls.push(`edit:${text}`), `m${calls.length}`),
    followUp: async (text) => (calls.push(`follow:${text}`), `m${calls.length}`),
    edit: async (messageId, text, components) => void calls.push(`change:${messageId}:${text}:${components.length}`),
  };
}

describe("PendingInteractions", () => {
  it("edits the first part in, follows up with the rest, and does not post a resent part twice", async () => {
    const pending = new PendingInteractions(() => 0);
    const replier = recordingReplier();
    pending.remember("i1", replier);
    expect(await pending.reply("i1", "part one", "d1p0")).toBe("m1");
    expect(await pending.reply("i1", "part two", "d1p1")).toBe("m2");
    expect(await pending.reply("i1", "part two", "d1p1")).toBe("m2");
    expect(replier.calls).toEqual(["edit:part one", "follow:part two"]);
  });

  it("edits only messages the interaction posted, with their buttons", async () => {
    const pending = new PendingInteractions(() => 0);
    const replier = recordingReplier();
    pending.remember("i1", replier);
    const row = { type: 1 as const, components: [] };
    expect(await pending.reply("i1", "Approve?", "d2p0", [row])).toBe("m1");
    expect(await pending.edit("i1", "m1", "Approved.", [])).toBe(true);
    expect(await pending.edit("i1", "someone-elses", "x", [])).toBe(false);
    expect(await pending.edit("i2", "m1", "x", [])).toBe(false);
    expect(replier.calls).toEqual(["edit:Approve?", "change:m1:Approved.:0"]);
  });

  it("knows no interaction after its token's 15 minutes, nor one it never took", async () => {
    let now = 0;
    const pending = new PendingInteractions(() => now);
    const replier = recordingReplier();
    pending.remember("i1", replier);
    now = INTERACTION_TOKEN_LIFETIME_MS;
    expect(pending.has("i1")).toBe(false);
    expect(await pending.reply("i1", "late")).toBeUndefined();
    expect(await pending.reply("other", "text")).toBeUndefined();
    expect(replier.calls).toEqual([]);
  });

  it("lets a failed edit be tried again", async () => {
    const pending = new PendingInteractions(() => 0);
    let fail = true;
    const edits: string[] = [];
    pending.remember("i1", {
      editReply: async (text) => {
        if (fail) throw new Error("503");
        edits.push(text);
        return "m1";
      },
      followUp: async () => "never",
      edit: async () => undefined,
    });
    await expect(pending.reply("i1", "hello", "d1p0")).rejects.toThrow("503");
    fail = false;
    expect(await pending.reply("i1", "hello", "d1p0")).toBe("m1");
    expect(edits).toEqual(["hello"]);
  });
});
