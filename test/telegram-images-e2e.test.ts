import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { silentLogger } from "@hermes/agent";
import type { GatewayConfig } from "@hermes/gateway";
import { createTelegramAdapter } from "@hermes/telegram";
import { startFakeTelegram, type FakeTelegram, type UserMessageOptions } from "./fakes/telegram/index.js";
import type { RecordedRequest } from "./fakes/llm-server.js";
import { startGatewayHarness, type GatewayHarness } from "./support/gateway-harness.js";
import { minimalPdf } from "../packages/gateway/src/attachments/pdf-fixture.js";

const TOKEN = "123456:TEST-token";
const DM_KEY = "agent:main:telegram:dm:7";
// Starts like a JPEG (SOI and an APP0 marker), which is what decides; the rest is arbitrary bytes.
const PHOTO = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.from("a small photo of a cat")]);
let fake: FakeTelegram | undefined;
let harness: GatewayHarness | undefined;

afterEach(async () => {
  await harness?.close();
  await fake?.close();
  harness = undefined;
  fake = undefined;
});

async function start(env: Record<string, string> = {}): Promise<{ fake: FakeTelegram; h: GatewayHarness }> {
  const telegram = await startFakeTelegram({ token: TOKEN });
  fake = telegram;
  const adapterFor = (config: GatewayConfig) => {
    if (!config.telegram) throw new Error("TELEGRAM_BOT_TOKEN did not configure Telegram");
    const attachmentsDir = path.join(config.paths.workspace, "attachments", "telegram");
    return createTelegramAdapter(config.telegram, { logger: silentLogger, attachmentsDir, maxAttachmentBytes: 20 * 1024 * 1024 });
  };
  const h = await startGatewayHarness(
    { TELEGRAM_BOT_TOKEN: TOKEN, TELEGRAM_API_ROOT: telegram.apiRoot, HERMES_ALLOWED_USERS: "telegram:7", ...env },
    undefined,
    { adapters: (config) => [adapterFor(config)] },
  );
  harness = h;
  return { fake: telegram, h };
}

async function say(telegram: FakeTelegram, h: GatewayHarness, options: UserMessageOptions): Promise<void> {
  const written = telegram.userWrites(options);
  await telegram.waitForConfirmation(written.update);
  await h.gateway.waitIdle(DM_KEY);
}

type Part = { type: string; text?: string; image_url?: { url: string } };

/** The user messages of a request as the OpenAI-compatible wire carries them (a string or a list of parts). */
function userContents(request: RecordedRequest | undefined): Part[][] {
  return (request?.messages ?? [])
    .filter((m): m is { role: string; content: string | Part[] } => (m as { role: string }).role === "user")
    .map((m) => (typeof m.content === "string" ? [{ type: "text", text: m.content }] : m.content));
}

function textOf(parts: Part[] | undefined): string {
  return (parts ?? []).flatMap((part) => (part.type === "text" ? [part.text ?? ""] : [])).join("\n");
}

describe("Telegram photos and files reach the model (grammY against the fake Bot API)", () => {
  it("sends a photo as image content to a model that sees images, and only in the turn it was sent", async () => {
    const { fake, h } = await start({ HERMES_MODEL_INPUT: "text,image" });
    h.llm.enqueue({ kind: "text", text: "A cat on a sofa." }, { kind: "text", text: "It was grey." });
    await say(fake, h, { caption: "what is in this picture?", photo: { content: PHOTO } });

    const [first] = userContents(h.llm.requests[0]).slice(-1);
    expect(first?.filter((part) => part.type === "image_url")).toEqual([{ type: "image_url", image_url: { url: `data:image/jpeg;base64,${PHOTO.toString("base64")}` } }]);
    expect(textOf(first)).toMatch(/^what is in this picture\?\n\[Image: image, photo\.jpg, image\/jpeg, .* — saved at .*photo\.jpg; attached below\]$/);
    expect(fake.sentTo(7).map((s) => s.visible)).toEqual(["A cat on a sofa."]);

    await say(fake, h, { text: "what colour was it?" });
    const later = userContents(h.llm.requests[1]);
    expect(later.flat().some((part) => part.type === "image_url")).toBe(false);
    expect(textOf(later[0])).toContain("it is not kept in the conversation");
    expect(fake.sentTo(7).map((s) => s.visible)).toEqual(["A cat on a sofa.", "It was grey."]);
  });

  it("tells the person once per conversation that a text-only model cannot see images, and still answers", async () => {
    const { fake, h } = await start();
    h.llm.enqueue({ kind: "text", text: "I see you sent a photo." }, { kind: "text", text: "Another photo." });
    await say(fake, h, { caption: "look at this", photo: { content: PHOTO } });
    const [asked] = userContents(h.llm.requests[0]).slice(-1);
    expect(asked?.some((part) => part.type === "image_url")).toBe(false);
    expect(textOf(asked)).toContain("not shown to you: the model in use cannot see images");

    await say(fake, h, { caption: "and this", photo: { content: PHOTO } });
    expect(fake.sentTo(7).map((s) => s.visible)).toEqual([
      'I see you sent a photo.\n\n(The model I run on cannot see images, so I could not look at "photo.jpg". It only knows that an image was sent; describe what matters in words. I won\'t repeat this note in this conversation.)',
      "Another photo.",
    ]);
  });

  it("inlines a text document in the message, fenced with its name", async () => {
    const { fake, h } = await start();
    h.llm.enqueue({ kind: "text", text: "Two steps." });
    await say(fake, h, { caption: "summarise", document: { content: Buffer.from("# Plan\n1. boil water\n2. add tea\n"), name: "plan.md", mimeType: "text/markdown" } });
    const text = textOf(userContents(h.llm.requests[0]).at(-1));
    expect(text).toMatch(/^summarise\n\[Document: document, plan\.md, text\/markdown, 32 bytes — saved at .*plan\.md\]\n```md\n# Plan\n1\. boil water\n2\. add tea\n\n```$/);
    expect(fake.sentTo(7).map((s) => s.visible)).toEqual(["Two steps."]);
  });

  it("inlines a PDF's text, page by page, and names a scanned one with the reason", async () => {
    const { fake, h } = await start();
    h.llm.enqueue({ kind: "text", text: "It says hello." }, { kind: "text", text: "I cannot read a scan." });
    await say(fake, h, { caption: "what does it say?", document: { content: minimalPdf(["Hello PDF", "Goodbye PDF"]), name: "letter.pdf", mimeType: "application/pdf" } });
    const text = textOf(userContents(h.llm.requests[0]).at(-1));
    expect(text).toMatch(/^what does it say\?\n\[Document: document, letter\.pdf, application\/pdf, \d+ bytes — saved at .*letter\.pdf; its text, extracted\]\n```text\n--- page 1 ---\nHello PDF\n--- page 2 ---\nGoodbye PDF\n```$/);

    await say(fake, h, { caption: "and this?", document: { content: minimalPdf([null]), name: "scan.pdf", mimeType: "application/pdf" } });
    expect(textOf(userContents(h.llm.requests[1]).at(-1))).toMatch(/; its text is not included: it has no text layer \(a scan, or only images\)\]$/);
    expect(fake.sentTo(7).map((s) => s.visible)).toEqual(["It says hello.", "I cannot read a scan."]);
  });

  it("inlines only what a model with a small context window has room for, and says where the rest is", async () => {
    const { fake, h } = await start({ HERMES_CONTEXT_WINDOW: "4000" });
    h.llm.enqueue({ kind: "text", text: "It failed at the end." });
    await say(fake, h, { caption: "why?", document: { content: Buffer.from("step ok\n".repeat(2_000)), name: "build.log", mimeType: "text/plain" } });
    const text = textOf(userContents(h.llm.requests[0]).at(-1));
    expect(text).toMatch(/\n\[Only the start of "build\.log" is shown \(2\.9 KB\); the whole file is saved at .*build\.log\.\]$/);
    expect(text.length).toBeLessThan(3_500);
    expect(fake.sentTo(7).map((s) => s.visible)).toEqual(["It failed at the end."]);
  });
});
