import { open, readFile, stat } from "node:fs/promises";
import type { Logger } from "@hermes/agent";
import { fenceFor } from "./fence.js";
import { DEFAULT_MAX_PDF_PAGES, DEFAULT_PDF_TIMEOUT_MS, extractPdfText, looksLikePdf, type PdfTextFailure } from "./pdf-text.js";

/** Past this a PDF is not parsed at all: pdf.js holds the whole file and more in memory while it reads. */
export const MAX_PDF_BYTES = 50 * 1024 * 1024;

export interface PdfAttachment {
  file: string;
  name: string;
  /** The attachment's summary line (kind, name, type, size). */
  what: string;
  /** Where the whole file is, as the model is told ("saved at …"). */
  where: string;
  /** Bytes of inlined text this message still has room for. */
  budget: number;
  logger?: Logger;
  maxPages?: number;
  timeoutMs?: number;
}

const FAILURES: Record<PdfTextFailure, string> = {
  "no-text-layer": "it has no text layer (a scan, or only images)",
  "password-protected": "it is password-protected",
  unreadable: "it could not be read as a PDF",
  "timed-out": "reading it took too long",
};

/** The file's bytes begin like a PDF (a PDF sent as octet-stream or without a name counts too). */
export async function isPdfFile(file: string): Promise<boolean> {
  let handle;
  try {
    handle = await open(file, "r");
    const head = Buffer.alloc(5);
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    return looksLikePdf(head.subarray(0, bytesRead));
  } catch {
    return false;
  } finally {
    await handle?.close();
  }
}

/** A PDF's text inlined like a text document, or a line saying why it is not (the file stays where it is). */
export async function describePdf(pdf: PdfAttachment): Promise<{ line: string; inlinedBytes?: number }> {
  const withheld = (why: string) => ({ line: `[Attachment: ${pdf.what} — ${pdf.where}; its text is not included: ${why}]` });
  if (pdf.budget <= 0) return { line: `[Attachment: ${pdf.what} — ${pdf.where}; not included: this message's documents already fill the space for inlined text]` };
  const size = await stat(pdf.file).then((s) => s.size, () => undefined);
  if (size === undefined) return withheld("it could not be read");
  if (size > MAX_PDF_BYTES) return withheld(`PDFs over ${MAX_PDF_BYTES / (1024 * 1024)} MB are not read`);
  const bytes = await readFile(pdf.file).catch(() => undefined);
  if (bytes === undefined) return withheld("it could not be read");
  const maxPages = pdf.maxPages ?? DEFAULT_MAX_PDF_PAGES;
  const timeoutMs = pdf.timeoutMs ?? DEFAULT_PDF_TIMEOUT_MS;
  const extracted = await extractPdfText(bytes, { maxBytes: pdf.budget, maxPages, signal: AbortSignal.timeout(timeoutMs) });
  if (!extracted.ok) {
    const fields = { file: pdf.file, reason: extracted.reason, ...(extracted.error === undefined ? {} : { error: extracted.error }) };
    // A scan or a locked file is the sender's choice; a PDF that breaks or stalls the reader is worth the operator's eye.
    if (extracted.reason === "unreadable" || extracted.reason === "timed-out") pdf.logger?.warn("PDF text not extracted", { ...fields, timeoutMs });
    else pdf.logger?.debug("PDF text not extracted", fields);
    return withheld(extracted.reason === "timed-out" ? `reading it took longer than ${timeoutMs / 1000} s` : FAILURES[extracted.reason]);
  }
  const fence = fenceFor(extracted.text);
  const whole = `the whole file is ${pdf.where}`;
  const note =
    extracted.cut === "budget"
      ? `\n[Only the start of "${pdf.name}" is shown (up to page ${extracted.pagesShown} of ${extracted.totalPages}); ${whole}.]`
      : extracted.cut === "pages"
        ? `\n[Only the first ${extracted.pagesShown} of ${extracted.totalPages} pages of "${pdf.name}" are shown; ${whole}.]`
        : "";
  return { line: `[Document: ${pdf.what} — ${pdf.where}; its text, extracted]\n${fence}text\n${extracted.text}\n${fence}${note}`, inlinedBytes: extracted.bytes };
}
