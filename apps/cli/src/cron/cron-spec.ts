import type { GroupSpec } from "../cli/command-spec.js";

const json = { type: "boolean", description: "print JSON instead of text" } as const;

export const CRON_GROUP: GroupSpec = {
  name: "cron",
  summary: "scheduled tasks chats created (the cronjob tool, /cron): list them or remove one",
  subcommands: [
    { name: "list", positionals: [0, 0], options: { json }, summary: "every scheduled task: its chat, schedule, next and last run, and prompt" },
    { name: "remove", args: "<id>", positionals: [1, 1], summary: "remove a scheduled task (exit 1 when there is none with that id)" },
  ],
};
