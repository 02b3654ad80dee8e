import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createJsonLogger } from "@hermes/agent";
import type { InboundAttachment, InboundMessage } from "../core/inbound.js";
import { userInputFor } from "./attachment-content.js";
import { minimalPdf } from "./pdf-fixture.js";

let workspace = "";
beforeEach(async () => {
  workspace = await mkdtemp(path.join(os.tmpdir(), "hermes-pdf-"));
  await mkdir(path.join(workspace, "attachments"));
});
afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
});

async function saved(name: string, bytes: Buffer | string): Promise<string> {
  await writeFile(path.join(workspace, "attachments", name), bytes);
  return `attachments/${name}`;
}

function message(attachments: InboundAttachment[]): InboundMessage {
  return { platform: "telegram", chat: { id: "7", type: "dm" }, user: { id: "7", name: "Ann" }, messageId: "1", text: "read this", attachments, mentionedBot: false, timestamp: 0 };
}

function capturingLogger(): { logger: ReturnType<typeof createJsonLogger>; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  return { logger: createJsonLogger({ level: "debug", write: (line) => lines.push(JSON.parse(line) as Record<string, unknown>) }), lines };
}

const options = { acceptsImages: true, shared: false };

describe("userInputFor with PDFs", () => {
  it("inlines a PDF's text page by page, fenced under its name", async () => {
    const localPath = await saved("report.pdf", minimalPdf(["Hello PDF", "The end"]));
    const input = await userInputFor(message([{ kind: "document", name: "report.pdf", mimeType: "application/pdf", localPath }]), { ...options, workspace });
    expect(input.content).toBe(
      "read this\n[Document: document, report.pdf, application/pdf — saved at attachments/report.pdf; its text, extracted]\n```text\n--- page 1 ---\nHello PDF\n--- page 2 ---\nThe end\n```",
    );
  });

  it("knows a PDF by its bytes, whatever its name and type say, and a .pdf that is not one is only named", async () => {
    const real = await saved("upload.bin", minimalPdf(["Hello PDF"]));
    const fake = await saved("fake.pdf", "just some words");
    const input = await userInputFor(
      message([
        { kind: "document", name: "upload.bin", mimeType: "application/octet-stream", localPath: real },
        { kind: "document", name: "fake.pdf", mimeType: "application/pdf", localPath: fake },
      ]),
      { ...options, workspace },
    );
    expect(input.content).toBe(
      "read this\n[Document: document, upload.bin, application/octet-stream — saved at attachments/upload.bin; its text, extracted]\n```text\n--- page 1 ---\nHello PDF\n```\n" +
        "[Attachment: document, fake.pdf, application/pdf — saved at attachments/fake.pdf; its content is not included here]",
    );
  });

  it("shows the first 50 pages of a longer PDF and says where the whole file is", async () => {
    const localPath = await saved("long.pdf", minimalPdf(Array.from({ length: 52 }, (_, i) => `Page text ${i + 1}`)));
    const text = String((await userInputFor(message([{ kind: "document", name: "long.pdf", localPath }]), { ...options, workspace })).content);
    expect(text).toContain("--- page 50 ---\nPage text 50\n```\n");
    expect(text).not.toContain("page 51");
    expect(text.endsWith('\n[Only the first 50 of 52 pages of "long.pdf" are shown; the whole file is saved at attachments/long.pdf.]')).toBe(true);
  });

  it("shares the message's budget for inlined text with the other documents", async () => {
    const notes = await saved("notes.txt", "n".repeat(60));
    const pdf = await saved("report.pdf", minimalPdf(["Hello PDF", "Second page"]));
    const later = await saved("later.pdf", minimalPdf(["Never shown"]));
    const input = await userInputFor(
      message([
        { kind: "document", name: "notes.txt", localPath: notes },
        { kind: "document", name: "report.pdf", localPath: pdf },
        { kind: "document", name: "later.pdf", localPath: later },
      ]),
      { ...options, workspace, maxInlineTextBytes: 90 },
    );
    const text = String(input.content);
    expect(text).toContain("```text\n--- page 1 ---\nHello PDF\n--- p\n```\n");
    expect(text).toContain('[Only the start of "report.pdf" is shown (up to page 2 of 2); the whole file is saved at attachments/report.pdf.]');
    expect(text.endsWith("[Attachment: document, later.pdf — saved at attachments/later.pdf; not included: this message's documents already fill the space for inlined text]")).toBe(true);
  });

  it("says why a scan, a password-protected PDF or a broken one has no text shown, and logs the cause", async () => {
    const scan = await saved("scan.pdf", minimalPdf([null]));
    const locked = await saved("locked.pdf", minimalPdf(["secret"], { encrypted: true }));
    const broken = await saved("broken.pdf", minimalPdf(["Hello PDF"]).subarray(0, 200));
    const { logger, lines } = capturingLogger();
    const input = await userInputFor(
      message([
        { kind: "document", name: "scan.pdf", localPath: scan },
        { kind: "document", name: "locked.pdf", localPath: locked },
        { kind: "document", name: "broken.pdf", localPath: broken },
      ]),
      { ...options, workspace, logger },
    );
    expect(String(input.content).split("\n").slice(1)).toEqual([
      "[Attachment: document, scan.pdf — saved at attachments/scan.pdf; its text is not included: it has no text layer (a scan, or only images)]",
      "[Attachment: document, locked.pdf — saved at attachments/locked.pdf; its text is not included: it is password-protected]",
      "[Attachment: document, broken.pdf — saved at attachments/broken.pdf; its text is not included: it could not be read as a PDF]",
    ]);
    expect(lines.map((line) => [line.level, line.msg, line.reason])).toEqual([
      ["debug", "PDF text not extracted", "no-text-layer"],
      ["debug", "PDF text not extracted", "password-protected"],
      ["warn", "PDF text not extracted", "unreadable"],
    ]);
    expect(lines[2]?.error).toMatchObject({ name: "InvalidPDFException" });
  });
});
