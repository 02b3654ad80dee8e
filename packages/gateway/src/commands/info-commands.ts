import { dailyBudgetStatus, todayUsageLine } from "../core/daily-budget.js";
import type { CommandContext, CommandDefinition } from "./types.js";

function formatTokens(n: number): string {
  return n.toLocaleString("en-US");
}

function formatCost(usd: number): string {
  return usd === 0 ? "$0" : usd < 0.01 ? `$${usd.toFixed(4)}` : `$${usd.toFixed(2)}`;
}

async function currentModel(context: CommandContext): Promise<string> {
  const session = await context.store.sessions.active(context.sessionKey);
  return session?.model ?? context.models.primary;
}

export const infoCommands: CommandDefinition[] = [
  {
    name: "status",
    usage: "/status",
    description: "show this conversation's state",
    run: async (context) => {
      const session = await context.store.sessions.active(context.sessionKey);
      const busy = await context.store.inbound.unanswered(context.sessionKey);
      const model = await currentModel(context);
      if (!session) return `No conversation yet. Model: ${model}. Send a message to start.`;
      const messages = await context.store.messages.count(session.id);
      const usage = await context.store.usage.forSession(session.id);
      const state = busy === 0 ? "idle" : busy === 1 ? "working on 1 message" : `working (${busy - 1} queued after the current one)`;
      return [
        `Conversation ${session.id.slice(0, 8)} — started ${new Date(session.createdAt).toISOString().slice(0, 16).replace("T", " ")} UTC`,
        `Messages: ${messages}; model: ${model}; ${state}`,
        `Tokens: ${formatTokens(usage.inputTokens)} in, ${formatTokens(usage.outputTokens)} out; cost ${formatCost(usage.costUsd)}`,
      ].join("\n");
    },
  },
  {
    name: "whoami",
    usage: "/whoami",
    description: "show who the bot thinks you are",
    run: async (context) => {
      const { message } = context;
      const how = { allowlist: "on the allowlist", paired: "approved through pairing", console: "local console user" }[context.authorization];
      return [
        `You are ${message.user.name ? `${message.user.name} ` : ""}(${message.platform} user ${message.user.id}), ${how}.`,
        `Chat: ${message.chat.type} ${message.chat.id}${message.threadId ? `, thread ${message.threadId}` : ""}`,
        `Session key: ${context.sessionKey}`,
      ].join("\n");
    },
  },
  {
    name: "usage",
    usage: "/usage",
    description: "show today's spend (and the daily budget), and tokens and cost of this conversation and of all yours",
    run: async (context) => {
      const session = await context.store.sessions.active(context.sessionKey);
      const mine = session ? await context.store.usage.forSession(session.id) : undefined;
      const total = await context.store.usage.forUser(context.message.platform, context.message.user.id);
      const line = (label: string, u: { runs: number; inputTokens: number; outputTokens: number; costUsd: number }) =>
        `${label}: ${u.runs} answer${u.runs === 1 ? "" : "s"}, ${formatTokens(u.inputTokens)} tokens in, ${formatTokens(u.outputTokens)} out, ${formatCost(u.costUsd)}`;
      const today = await dailyBudgetStatus(context.store.usage, { platform: context.message.platform, userId: context.message.user.id }, context.dailyBudgetUsd, context.now());
      return [
        todayUsageLine(today, context.now()),
        mine ? line("This conversation", mine) : "This conversation: nothing yet",
        line("All your conversations", total),
      ].join("\n");
    },
  },
  {
    name: "model",
    usage: "/model [provider/model-id | default]",
    description: "show or change the model for this conversation",
    run: async (context) => {
      const wanted = context.args.trim();
      const session = await context.store.sessions.active(context.sessionKey);
      if (wanted === "") {
        const fallback = context.models.fallback ? `; fallback: ${context.models.fallback}` : "";
        return `Model: ${session?.model ?? context.models.primary}${session?.model ? " (set for this conversation)" : ""}${fallback}.`;
      }
      if (!session) return "Send a message first; the model is set per conversation.";
      if (wanted === "default") {
        await context.store.sessions.setModel(session.id, undefined);
        return `Back to the default model, ${context.models.primary}.`;
      }
      const problem = context.checkModel(wanted);
      if (problem) return `Can't use ${wanted}: ${problem}`;
      await context.store.sessions.setModel(session.id, wanted);
      return `This conversation now uses ${wanted}.`;
    },
  },
];
