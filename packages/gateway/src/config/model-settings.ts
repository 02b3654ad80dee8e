import { CUSTOM_APIS, DEFAULT_CUSTOM_CONTEXT_WINDOW, MODEL_INPUT_KINDS, type CustomApi, type ModelInputKind } from "@hermes/agent";
import { definedOnly } from "./defined-only.js";
import type { FallbackModelSettings, ModelSettings } from "./gateway-config.js";
import { readModelPrice } from "./limit-settings.js";
import type { SettingReader } from "./setting-reader.js";

const MIN_CONTEXT_WINDOW = 1024;

/** The primary model; provider names stay unresolved here (the agent resolves them). */
export function readModelSettings(reader: SettingReader): ModelSettings | undefined {
  const model = reader.text("HERMES_MODEL");
  const baseUrl = reader.httpUrl("HERMES_BASE_URL");
  const api = readApi(reader, "HERMES_API", "HERMES_BASE_URL");
  const apiKey = reader.text("HERMES_API_KEY");
  const contextWindow =
    reader.integer("HERMES_CONTEXT_WINDOW", { min: MIN_CONTEXT_WINDOW }) ?? DEFAULT_CUSTOM_CONTEXT_WINDOW;
  const price = readModelPrice(reader);
  const input = readModelInput(reader);
  if (model === undefined) {
    if (reader.has("HERMES_BASE_URL")) {
      reader.fail("HERMES_MODEL", "is required with HERMES_BASE_URL: set it to the model id the endpoint serves");
    } else if (apiKey !== undefined) {
      reader.warn("HERMES_API_KEY is set but HERMES_MODEL is not, so no model is configured");
    }
    return undefined;
  }
  return definedOnly({ model, baseUrl, api, apiKey, contextWindow, price, input });
}

/** The model to switch to when the primary keeps failing. */
export function readFallbackSettings(reader: SettingReader): FallbackModelSettings | undefined {
  const model = reader.text("HERMES_FALLBACK_MODEL");
  const baseUrl = reader.httpUrl("HERMES_FALLBACK_BASE_URL");
  const api = readApi(reader, "HERMES_FALLBACK_API", "HERMES_FALLBACK_BASE_URL");
  const apiKey = reader.text("HERMES_FALLBACK_API_KEY");
  if (model === undefined) {
    if (reader.has("HERMES_FALLBACK_BASE_URL")) {
      reader.fail(
        "HERMES_FALLBACK_MODEL",
        "is required with HERMES_FALLBACK_BASE_URL: set it to the model id the endpoint serves",
      );
    } else if (apiKey !== undefined) {
      reader.warn(
        "HERMES_FALLBACK_API_KEY is set but HERMES_FALLBACK_MODEL is not, so no fallback model is configured",
      );
    }
    return undefined;
  }
  return definedOnly({ model, baseUrl, api, apiKey });
}

/** A catalogue model's protocol is fixed by pi-ai, so the setting only means something next to a base URL. */
function readApi(
  reader: SettingReader,
  name: "HERMES_API" | "HERMES_FALLBACK_API",
  baseUrlName: "HERMES_BASE_URL" | "HERMES_FALLBACK_BASE_URL",
): CustomApi | undefined {
  const api = reader.choice(name, CUSTOM_APIS);
  if (api !== undefined && !reader.has(baseUrlName)) {
    reader.warn(`${name} is set but ${baseUrlName} is not, so it has no effect (a catalogue model's protocol is known)`);
  }
  return api;
}

/** HERMES_MODEL_INPUT: a custom endpoint cannot be asked whether its model sees images, so the operator says so. */
function readModelInput(reader: SettingReader): readonly ModelInputKind[] | undefined {
  const text = reader.text("HERMES_MODEL_INPUT");
  if (text === undefined) return undefined;
  const kinds = text.split(",").map((kind) => kind.trim().toLowerCase());
  if (!kinds.includes("text") || kinds.some((kind) => !(MODEL_INPUT_KINDS as readonly string[]).includes(kind))) {
    reader.reject("HERMES_MODEL_INPUT", "must be `text` or `text,image`");
    return undefined;
  }
  if (!reader.has("HERMES_BASE_URL")) {
    reader.warn("HERMES_MODEL_INPUT is set but HERMES_BASE_URL is not, so it has no effect (a catalogue model's input is known)");
  }
  return MODEL_INPUT_KINDS.filter((kind) => kinds.includes(kind));
}
