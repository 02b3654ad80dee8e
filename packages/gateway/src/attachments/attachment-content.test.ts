import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { InboundAttachment, InboundMessage } from "../core/inbound.js";
import { NO_VISION_MARKER, userInputFor } from "./attachment-content.js";

// A 1×1 transparent PNG.
const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=", "base64");
const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(60, 7)]);

let workspace = "";
beforeEach(async () => {
  workspace = await mkdtemp(path.join(os.tmpdir(), "hermes-attachments-"));
  await mkdir(path.join(workspace, "attachments"));
});
afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
});

async function saved(name: string, bytes: Buffer | string): Promise<string> {
  const file = path.join(workspace, "attachments", name);
  await writeFile(file, bytes);
  return file;
}

function message(attachments: InboundAttachment[], text = "look"): InboundMessage {
  return { platform: "telegram", chat: { id: "7", type: "dm" }, user: { id: "7", name: "Ann" }, messageId: "1", text, attachments, mentionedBot: false, timestamp: 0 };
}

const vision = { acceptsImages: true, shared: false };

describe("userInputFor", () => {
  it("is the plain text for a message without attachments, prefixed with the sender in a shared session", async () => {
    expect(await userInputFor(message([], "hello"), { ...vision, workspace })).toEqual({ content: "hello", unseenImages: [] });
    expect((await userInputFor(message([], "hello"), { ...vision, workspace, shared: true })).content).toBe("[Ann] hello");
  });

  it("sends an image as an image part after the text, with its real format whatever the name says", async () => {
    const file = await saved("photo.jpg", PNG);
    const input = await userInputFor(message([{ kind: "image", name: "photo.jpg", mimeType: "image/jpeg", localPath: file }]), { ...vision, workspace });
    expect(input.unseenImages).toEqual([]);
    expect(input.content).toEqual([
      { type: "text", text: expect.stringMatching(/^look\n\[Image: image, photo\.jpg, image\/jpeg — saved at .*photo\.jpg; attached below\]$/) },
      { type: "image", data: PNG.toString("base64"), mimeType: "image/png" },
    ]);
  });

  it("reads a workspace-relative path (the database mode's) inside the workspace, and nothing outside it", async () => {
    await saved("a.jpg", JPEG);
    const relative = await userInputFor(message([{ kind: "image", name: "a.jpg", localPath: "attachments/a.jpg" }]), { ...vision, workspace });
    expect(relative.content).toEqual([expect.objectContaining({ type: "text" }), { type: "image", data: JPEG.toString("base64"), mimeType: "image/jpeg" }]);

    const outside = await mkdtemp(path.join(os.tmpdir(), "hermes-outside-"));
    try {
      await writeFile(path.join(outside, "secret.png"), PNG);
      await symlink(path.join(outside, "secret.png"), path.join(workspace, "attachments", "link.png"));
      for (const localPath of ["../" + path.basename(outside) + "/secret.png", path.join(outside, "secret.png"), "attachments/link.png"]) {
        const input = await userInputFor(message([{ kind: "image", name: "secret.png", localPath }]), { ...vision, workspace });
        expect(input.content).toBe(`look\n[Attachment: image, secret.png — saved at ${localPath}]`);
      }
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });

  it("reads no file at all without a workspace, an absolute path included", async () => {
    const file = await saved("photo.png", PNG);
    const input = await userInputFor(message([{ kind: "image", name: "photo.png", localPath: file }]), vision);
    expect(input.content).toBe(`look\n[Attachment: image, photo.png — saved at ${file}]`);
  });

  it("describes an image the model cannot see, naming it so the reply can say so", async () => {
    const file = await saved("photo.jpg", JPEG);
    const input = await userInputFor(message([{ kind: "image", name: "photo.jpg", localPath: file }]), { acceptsImages: false, shared: false, workspace });
    expect(input.unseenImages).toEqual(["photo.jpg"]);
    expect(input.content).toBe(`look\n[Image: image, photo.jpg — saved at ${file}; ${NO_VISION_MARKER}]`);
  });

  it("describes an image over the cap, and bytes that are no image, without sending them", async () => {
    const big = await saved("big.png", Buffer.concat([PNG, Buffer.alloc(2000)]));
    const fake = await saved("photo.jpg", "not really a jpeg");
    const input = await userInputFor(
      message([
        { kind: "document", name: "big.png", mimeType: "image/png", localPath: big },
        { kind: "image", name: "photo.jpg", localPath: fake },
      ]),
      { ...vision, workspace, maxImageBytes: 1024 },
    );
    expect(input.content).toBe(
      [
        "look",
        `[Image: document, big.png, image/png — saved at ${big}; not shown: images larger than 1 KB are not sent to the model]`,
        `[Attachment: image, photo.jpg — saved at ${fake}; not a JPEG, PNG, GIF or WebP image, so it is not shown]`,
      ].join("\n"),
    );
  });

  it("sends a message's images up to a total and describes the ones past it", async () => {
    const first = await saved("one.png", PNG);
    const second = await saved("two.png", PNG);
    const third = await saved("three.jpg", JPEG);
    const input = await userInputFor(
      message([
        { kind: "image", name: "one.png", localPath: first },
        { kind: "image", name: "two.png", localPath: second },
        { kind: "image", name: "three.jpg", localPath: third },
      ]),
      { ...vision, workspace, maxMessageImageBytes: PNG.length * 2 },
    );
    expect(input.content).toEqual([
      {
        type: "text",
        text: [
          "look",
          `[Image: image, one.png — saved at ${first}; attached below]`,
          `[Image: image, two.png — saved at ${second}; attached below]`,
          `[Image: image, three.jpg — saved at ${third}; not shown: this message's earlier images already fill what one message may send]`,
        ].join("\n"),
      },
      { type: "image", data: PNG.toString("base64"), mimeType: "image/png" },
      { type: "image", data: PNG.toString("base64"), mimeType: "image/png" },
    ]);
  });

  it("inlines a text document in a fence no line of it can close, and truncates at the budget with a note", async () => {
    const notes = await saved("notes.md", "# Plan\n```js\nx()\n```\n");
    const csv = await saved("data.csv", "a,b\n" + "1,2\n".repeat(100));
    const input = await userInputFor(
      message([
        { kind: "document", name: "notes.md", localPath: notes },
        { kind: "document", name: "data.csv", mimeType: "text/csv", localPath: csv },
      ]),
      { ...vision, workspace, maxInlineTextBytes: 60 },
    );
    const text = String(input.content);
    expect(text).toContain(`[Document: document, notes.md — saved at ${notes}]\n\`\`\`\`md\n# Plan\n\`\`\`js\nx()\n\`\`\`\n\n\`\`\`\``);
    // notes.md used 21 of the 60 bytes; the CSV gets the rest.
    expect(text).toContain(`[Document: document, data.csv, text/csv — saved at ${csv}]\n\`\`\`csv\na,b\n1,2\n`);
    expect(text).toContain(`1,2\n1,2\n\`\`\`\n[Only the start of "data.csv" is shown (39 bytes); the whole file is saved at ${csv}.]`);
  });

  it("inlines less for a model with a small context window, so one document cannot overflow it", async () => {
    const log = await saved("build.log", "x".repeat(10_000));
    const small = String((await userInputFor(message([{ kind: "document", name: "build.log", localPath: log }]), { ...vision, workspace, contextWindow: 2_000 })).content);
    expect(small).toContain(`[Only the start of "build.log" is shown (1.5 KB); the whole file is saved at ${log}.]`);
    expect(small).toContain("x".repeat(1_500) + "\n```");
    const large = String((await userInputFor(message([{ kind: "document", name: "build.log", localPath: log }]), { ...vision, workspace, contextWindow: 200_000 })).content);
    expect(large).toContain("x".repeat(10_000) + "\n```");
    expect(large).not.toContain("Only the start");
  });

  it("describes a binary file, a file once the text budget is spent, and an attachment that was not downloaded", async () => {
    const binary = await saved("report.txt", Buffer.from([0x41, 0x00, 0x42]));
    const pdf = await saved("report.pdf", "%PDF-1.4");
    const later = await saved("later.txt", "more");
    const input = await userInputFor(
      message([
        { kind: "document", name: "report.txt", localPath: binary },
        { kind: "document", name: "report.pdf", mimeType: "application/pdf", sizeBytes: 8, localPath: pdf },
        { kind: "document", name: "first.txt", localPath: await saved("first.txt", "12345") },
        { kind: "document", name: "later.txt", localPath: later },
        { kind: "audio", name: "voice.ogg", sizeBytes: 3000 },
      ]),
      { ...vision, workspace, maxInlineTextBytes: 5 },
    );
    const lines = String(input.content).split("\n");
    expect(lines).toContain(`[Attachment: document, report.txt — saved at ${binary}; its content is not included here]`);
    expect(lines).toContain(`[Attachment: document, report.pdf, application/pdf, 8 bytes — saved at ${pdf}; its text is not included: it could not be read as a PDF]`);
    expect(lines).toContain(`[Attachment: document, later.txt — saved at ${later}; not included: this message's documents already fill the space for inlined text]`);
    expect(lines).toContain("[Attachment: audio, voice.ogg, 2.9 KB]");
  });
});
