import { probeDiscord, probeSlack, probeTelegram, type ProbeResult } from "@hermes/gateway";
import type { DoctorContext } from "../doctor-check.js";

// An unconfigured platform is a choice, not a problem: the gateway runs without it.
const NOT_CONFIGURED: ProbeResult = { status: "ok", detail: "not configured" };

export function checkTelegram(context: DoctorContext): Promise<ProbeResult> {
  const telegram = context.config.telegram;
  return telegram ? probeTelegram({ token: telegram.token, apiRoot: telegram.apiRoot }, context.probe) : Promise.resolve(NOT_CONFIGURED);
}

export function checkDiscord(context: DoctorContext): Promise<ProbeResult> {
  const discord = context.config.discord;
  return discord ? probeDiscord({ token: discord.token, apiUrl: discord.apiUrl }, context.probe) : Promise.resolve(NOT_CONFIGURED);
}

export function checkSlack(context: DoctorContext): Promise<ProbeResult> {
  const slack = context.config.slack;
  return slack ? probeSlack({ botToken: slack.botToken, appToken: slack.appToken, apiUrl: slack.apiUrl }, context.probe) : Promise.resolve(NOT_CONFIGURED);
}
