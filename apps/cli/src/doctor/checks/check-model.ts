import { probeModel, type ProbeResult } from "@hermes/gateway";
import type { DoctorContext } from "../doctor-check.js";

/** A real, minimal request to the configured model, over the protocol its endpoint speaks (HERMES_API). */
export function checkModel(context: DoctorContext): Promise<ProbeResult> {
  const { config } = context;
  if (!config.model) {
    if (config.redisUrl) return Promise.resolve({ status: "warn", detail: "HERMES_MODEL is not set here; the workers (npm run worker) need it" });
    return Promise.resolve({ status: "fail", detail: "no model is configured: run npm run hermes -- setup, or set HERMES_MODEL (and HERMES_BASE_URL for your own server)" });
  }
  const { model, baseUrl, api, apiKey, contextWindow } = config.model;
  return probeModel({ model, baseUrl, api, apiKey, contextWindow, providerKeys: config.providerKeys }, context.probe);
}
