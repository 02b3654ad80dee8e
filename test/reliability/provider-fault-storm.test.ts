import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startGatewayHarness, type GatewayHarness } from "../support/gateway-harness.js";
import { faultyProvider, PROVIDER_FAULTS } from "../support/provider-faults.js";
import { seededRandom } from "../support/seeded-random.js";

const SEED = 1313;
const USERS = 10;
// Every call for these users' first messages fails, so the readable-error path is surely taken (each costs the
// agent's whole retry schedule, so they are few and in different sessions).
const UNLUCKY = ["q8x0", "q9x0"];
const MESSAGES_PER_USER = 4;
const BUSY_ACK = /^Got it\. I'm still answering/;
// What a person may be told instead of an answer: the agent's classified provider errors or the gateway's crash reply.
const READABLE_ERROR = /^(The AI provider|I couldn't reach the AI provider|Sorry, something went wrong)/;

let harness: GatewayHarness | undefined;
const rejections: unknown[] = [];
const onRejection = (reason: unknown): void => void rejections.push(reason);

beforeEach(() => {
  rejections.length = 0;
  process.on("unhandledRejection", onRejection);
});
afterEach(async () => {
  process.off("unhandledRejection", onRejection);
  await harness?.close();
  harness = undefined;
});

const tokenOf = (user: number, index: number): string => `q${user}x${index}`;
const sessionKeyOf = (user: number): string => `agent:main:telegram:dm:chat${user}`;

describe("provider fault storm (30% of model calls fail)", () => {
  it("gives every message exactly one reply, its own answer or a readable error, without a crash or unhandled rejection", async () => {
    const h = await startGatewayHarness({ HERMES_ALLOWED_USERS: "*", HERMES_TOOLS: "think", HERMES_WORKERS: String(USERS) });
    harness = h;
    const provider = faultyProvider(
      seededRandom(SEED),
      0.3,
      (userText) => `answer:${/q\d+x\d+/.exec(userText)?.[0] ?? "none"}`,
      (userText) => UNLUCKY.some((token) => userText.includes(token)),
    );
    // Far more steps than calls: retries included, a run makes at most a handful per message.
    h.llm.enqueue(...Array.from({ length: 1_000 }, () => provider.step));

    const sends: Promise<unknown>[] = [];
    for (let index = 0; index < MESSAGES_PER_USER; index += 1) {
      for (let user = 0; user < USERS; user += 1) {
        sends.push(
          h.adapter.userSays(`Please answer ${tokenOf(user, index)}`, {
            chat: { id: `chat${user}`, type: "dm" },
            user: { id: `user${user}`, name: `User ${user}` },
            messageId: `m-${user}-${index}`,
          }),
        );
      }
    }
    await Promise.all(sends);
    for (let user = 0; user < USERS; user += 1) await h.gateway.waitIdle(sessionKeyOf(user));

    // Each fault kind met at least once, so the storm tested what it claims to.
    expect(provider.tally.faults.every((count) => count > 0), `faults per kind ${JSON.stringify(provider.tally.faults)} of ${PROVIDER_FAULTS.length}`).toBe(true);
    for (let user = 0; user < USERS; user += 1) {
      const replies = h.adapter.texts(`chat${user}`).filter((text) => !BUSY_ACK.test(text));
      const answers = replies.filter((text) => text.startsWith("answer:"));
      const errors = replies.filter((text) => READABLE_ERROR.test(text));
      expect(replies.filter((text) => !answers.includes(text) && !errors.includes(text)), `unexpected replies for user ${user}`).toEqual([]);
      // Answers are each message's own, none twice; whatever was not answered got one error reply.
      const answered = answers.map((text) => text.slice("answer:".length));
      expect(new Set(answered).size).toBe(answered.length);
      for (const token of answered) expect(token).toMatch(new RegExp(`^q${user}x[0-${MESSAGES_PER_USER - 1}]$`));
      expect(answers.length + errors.length).toBe(MESSAGES_PER_USER);
      if (UNLUCKY.includes(tokenOf(user, 0))) expect(answered).not.toContain(tokenOf(user, 0));
      for (const error of errors) expect(error).not.toMatch(/\n\s+at |undefined|\[object/);
      expect(await h.gateway.store.inbound.unanswered(sessionKeyOf(user))).toBe(0);
    }
    expect(rejections).toEqual([]);
  }, 120_000);
});
