export type CronCommand =
  | { action: "list" }
  | { action: "create"; schedule: string; prompt: string }
  | { action: "remove"; id: string }
  | { action: "invalid"; error: string };

export const CRON_USAGE = [
  "Usage:",
  "/cron — list this chat's scheduled tasks",
  "/cron create <schedule> <prompt> — schedule: `in 20m`, `every 2h`, an ISO time like 2026-05-01T09:00Z, or 5 cron fields (UTC) like `0 9 * * 1-5`",
  "/cron remove <id>",
].join("\n");

/**
 * Reads /cron's arguments. A schedule is one token when it is an ISO time, two after `every` or `in`, and otherwise
 * the five fields of a cron expression; the rest is the prompt.
 */
export function parseCronCommand(args: string): CronCommand {
  const trimmed = args.trim();
  const [verb = "", ...rest] = trimmed.split(/\s+/);
  const action = verb.toLowerCase();
  if (trimmed === "" || action === "list") return { action: "list" };
  if (action === "remove" || action === "delete" || action === "rm") {
    const id = rest[0];
    return id !== undefined && rest.length === 1 ? { action: "remove", id } : { action: "invalid", error: `Say which task to remove: /cron remove <id>.\n\n${CRON_USAGE}` };
  }
  if (action !== "create" && action !== "add") return { action: "invalid", error: `Unknown /cron action "${verb}".\n\n${CRON_USAGE}` };
  const first = (rest[0] ?? "").toLowerCase();
  const width = /^\d{4}-\d{2}-\d{2}/.test(first) ? 1 : first === "every" || first === "in" ? 2 : 5;
  const schedule = rest.slice(0, width);
  // The prompt keeps its own line breaks and spacing: it is cut from the text after the schedule's last token.
  const tokens = [...trimmed.matchAll(/\S+/g)];
  const afterSchedule = tokens[width];
  const prompt = afterSchedule?.index === undefined ? "" : trimmed.slice(afterSchedule.index + afterSchedule[0].length).trim();
  if (schedule.length < width || prompt === "") return { action: "invalid", error: `/cron create needs a schedule and then a prompt.\n\n${CRON_USAGE}` };
  return { action: "create", schedule: schedule.join(" "), prompt };
}
