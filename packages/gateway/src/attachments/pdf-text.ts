import type { TextItem, TextMarkedContent } from "pdfjs-dist/types/src/display/api.js";

/** At most this many pages are read: a longer PDF's first pages stand for it, with a note. */
export const DEFAULT_MAX_PDF_PAGES = 50;
/** A hostile or huge PDF gives up after this long instead of holding the run. */
export const DEFAULT_PDF_TIMEOUT_MS = 10_000;

export type PdfTextFailure = "no-text-layer" | "password-protected" | "unreadable" | "timed-out";

export type PdfText =
  | {
      ok: true;
      /** The text, each page under a "--- page N ---" line. */
      text: string;
      /** Bytes of UTF-8 the text takes. */
      bytes: number;
      pagesShown: number;
      totalPages: number;
      /** Why less than the whole document is shown: the byte budget or the page cap. */
      cut?: "budget" | "pages";
    }
  | { ok: false; reason: PdfTextFailure; error?: unknown };

export interface PdfTextOptions {
  /** Bytes of text the result may take (the message's remaining budget for inlined text). */
  maxBytes: number;
  maxPages?: number;
  /** Aborts the extraction (a deadline: `AbortSignal.timeout(...)`). */
  signal: AbortSignal;
}

/** A PDF says so in its first bytes, whatever its name or the type the platform gave it. */
export function looksLikePdf(bytes: Uint8Array): boolean {
  return Buffer.from(bytes.subarray(0, 5)).toString("latin1") === "%PDF-";
}

type PdfJs = typeof import("pdfjs-dist/legacy/build/pdf.mjs");
let pdfjs: Promise<PdfJs> | undefined;

// Loaded on the first PDF only: start-up and an idle gateway do not carry pdf.js. In Node the legacy build runs its
// parser in-process (a "fake worker" it imports itself), so no worker file needs pointing to.
function loadPdfJs(): Promise<PdfJs> {
  pdfjs ??= import("pdfjs-dist/legacy/build/pdf.mjs");
  return pdfjs;
}

class DeadlinePassed extends Error {}

/** The text layer of a PDF, page by page, within a byte budget, a page cap and the signal's deadline. */
export async function extractPdfText(data: Uint8Array, options: PdfTextOptions): Promise<PdfText> {
  const { getDocument, VerbosityLevel } = await loadPdfJs();
  // Checked after the load, right before listening: an abort in between would otherwise never be heard.
  if (options.signal.aborted) return { ok: false, reason: "timed-out" };
  // pdf.js takes ownership of (detaches) the buffer it is given, so it gets a copy.
  const task = getDocument({ data: new Uint8Array(data), disableFontFace: true, useSystemFonts: false, isEvalSupported: false, verbosity: VerbosityLevel.ERRORS });
  let onAbort = (): void => undefined;
  const deadline = new Promise<never>((_, reject) => {
    onAbort = () => reject(new DeadlinePassed());
    options.signal.addEventListener("abort", onAbort, { once: true });
  });
  const reading = (async () => pagesOf(await task.promise, options))();
  // Whichever loses the race must not surface as an unhandled rejection.
  reading.catch(() => undefined);
  deadline.catch(() => undefined);
  try {
    return await Promise.race([reading, deadline]);
  } catch (error) {
    if (error instanceof DeadlinePassed) return { ok: false, reason: "timed-out" };
    if (error instanceof Error && error.name === "PasswordException") return { ok: false, reason: "password-protected", error };
    return { ok: false, reason: "unreadable", error };
  } finally {
    options.signal.removeEventListener("abort", onAbort);
    await task.destroy().catch(() => undefined);
  }
}

type PdfDocument = Awaited<ReturnType<PdfJs["getDocument"]>["promise"]>;

async function pagesOf(document: PdfDocument, options: PdfTextOptions): Promise<PdfText> {
  const maxPages = Math.min(document.numPages, options.maxPages ?? DEFAULT_MAX_PDF_PAGES);
  const parts: string[] = [];
  let bytes = 0;
  let anyText = false;
  for (let number = 1; number <= maxPages; number += 1) {
    if (options.signal.aborted) throw new DeadlinePassed();
    const page = await document.getPage(number);
    const pageText = textOf((await page.getTextContent()).items);
    page.cleanup();
    anyText ||= pageText.trim() !== "";
    const part = `${number === 1 ? "" : "\n"}--- page ${number} ---\n${pageText.trimEnd()}`;
    const partBytes = Buffer.byteLength(part);
    if (bytes + partBytes > options.maxBytes) {
      const room = utf8Prefix(part, options.maxBytes - bytes);
      parts.push(room);
      bytes += Buffer.byteLength(room);
      return anyText ? { ok: true, text: parts.join(""), bytes, pagesShown: number, totalPages: document.numPages, cut: "budget" } : { ok: false, reason: "no-text-layer" };
    }
    parts.push(part);
    bytes += partBytes;
  }
  if (!anyText) return { ok: false, reason: "no-text-layer" };
  const cut = maxPages < document.numPages ? { cut: "pages" as const } : {};
  return { ok: true, text: parts.join(""), bytes, pagesShown: maxPages, totalPages: document.numPages, ...cut };
}

function textOf(items: Array<TextItem | TextMarkedContent>): string {
  return items.map((item) => ("str" in item ? item.str + (item.hasEOL ? "\n" : "") : "")).join("");
}

/** The longest start of the text within that many UTF-8 bytes, never splitting a character. */
function utf8Prefix(text: string, maxBytes: number): string {
  if (maxBytes <= 0) return "";
  return new TextDecoder().decode(Buffer.from(text).subarray(0, maxBytes), { stream: true });
}
