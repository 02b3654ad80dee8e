import { describe, expect, it, vi } from "vitest";
import { minimalPdf } from "./pdf-fixture.js";
import { extractPdfText, looksLikePdf } from "./pdf-text.js";

const roomy = () => ({ maxBytes: 100_000, signal: AbortSignal.timeout(10_000) });

describe("extractPdfText (pdf.js)", () => {
  it("reads the text layer page by page, each page under its number", async () => {
    const read = await extractPdfText(minimalPdf(["Hello PDF", "Second (page)"]), roomy());
    expect(read).toEqual({ ok: true, text: "--- page 1 ---\nHello PDF\n--- page 2 ---\nSecond (page)", bytes: 53, pagesShown: 2, totalPages: 2 });
  });

  it("stops at the page cap and says how many pages there were", async () => {
    const read = await extractPdfText(minimalPdf(["one", "two", "three"]), { ...roomy(), maxPages: 2 });
    expect(read).toEqual({ ok: true, text: "--- page 1 ---\none\n--- page 2 ---\ntwo", bytes: 37, pagesShown: 2, totalPages: 3, cut: "pages" });
  });

  it("cuts at the byte budget, inside a page if need be", async () => {
    const read = await extractPdfText(minimalPdf(["Hello PDF", "Second page"]), { ...roomy(), maxBytes: 30 });
    expect(read).toEqual({ ok: true, text: "--- page 1 ---\nHello PDF\n--- p", bytes: 30, pagesShown: 2, totalPages: 2, cut: "budget" });
  });

  it("tells a scan (no text layer), a password-protected file and broken bytes apart", async () => {
    expect(await extractPdfText(minimalPdf([null, null]), roomy())).toEqual({ ok: false, reason: "no-text-layer" });
    expect(await extractPdfText(minimalPdf(["secret"], { encrypted: true }), roomy())).toMatchObject({ ok: false, reason: "password-protected", error: expect.objectContaining({ name: "PasswordException" }) });
    expect(await extractPdfText(minimalPdf(["Hello PDF"]).subarray(0, 200), roomy())).toMatchObject({ ok: false, reason: "unreadable", error: expect.any(Error) });
  });

  it("gives up once its deadline has passed, whether before or during the reading", async () => {
    expect(await extractPdfText(minimalPdf(["Hello PDF"]), { maxBytes: 1000, signal: AbortSignal.abort() })).toEqual({ ok: false, reason: "timed-out" });
    const deadline = new AbortController();
    const listen = deadline.signal.addEventListener.bind(deadline.signal);
    // The deadline passes the moment the extraction starts waiting on it, while pdf.js is still opening the document.
    vi.spyOn(deadline.signal, "addEventListener").mockImplementation((...args: Parameters<typeof listen>) => {
      listen(...args);
      deadline.abort();
    });
    const reading = extractPdfText(minimalPdf(["Hello PDF"]), { maxBytes: 100_000, signal: deadline.signal });
    expect(await reading).toEqual({ ok: false, reason: "timed-out" });
  });

  it("knows a PDF by its first bytes", () => {
    expect(looksLikePdf(minimalPdf(["x"]))).toBe(true);
    expect(looksLikePdf(Buffer.from("%PDF"))).toBe(false);
    expect(looksLikePdf(Buffer.from("hello world"))).toBe(false);
  });
});
