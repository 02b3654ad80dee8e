import { probeRedis, type ProbeResult } from "@hermes/gateway";
import type { DoctorContext } from "../doctor-check.js";

export function checkRedis(context: DoctorContext): Promise<ProbeResult> {
  const url = context.config.redisUrl;
  if (!url) return Promise.resolve({ status: "ok", detail: "not configured (agent runs happen inside the gateway process)" });
  return probeRedis(url, context.probe);
}
