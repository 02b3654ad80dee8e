import type { DeliveryButton } from "./types.js";

/** The stored form of a delivery's buttons: JSON, or null for none (an empty row shows nothing either). */
export function encodeButtons(buttons: readonly DeliveryButton[] | undefined): string | null {
  if (buttons === undefined || buttons.length === 0) return null;
  return JSON.stringify(buttons.map(({ label, value, style }) => (style === undefined ? { label, value } : { label, value, style })));
}

/**
 * The buttons of a stored row. The store wrote them, but a row damaged by hand must not stop the outbox: what is not
 * a button is left out, and the message still goes.
 */
export function decodeButtons(stored: string | null): DeliveryButton[] | undefined {
  if (stored === null) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(stored);
  } catch {
    return undefined;
  }
  if (!Array.isArray(parsed)) return undefined;
  const buttons = parsed.flatMap((item: unknown): DeliveryButton[] => {
    if (typeof item !== "object" || item === null) return [];
    const { label, value, style } = item as Record<string, unknown>;
    if (typeof label !== "string" || typeof value !== "string") return [];
    return [style === "primary" || style === "danger" ? { label, value, style } : { label, value }];
  });
  return buttons.length > 0 ? buttons : undefined;
}
