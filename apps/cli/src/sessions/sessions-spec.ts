import type { GroupSpec } from "../cli/command-spec.js";

const json = { type: "boolean", description: "print JSON instead of text" } as const;

export const SESSIONS_GROUP: GroupSpec = {
  name: "sessions",
  summary: "recent conversations and their transcripts, from the state database",
  subcommands: [
    {
      name: "list",
      positionals: [0, 0],
      options: {
        user: { type: "string", placeholder: "<platform:userId>", description: "only this person's conversations" },
        limit: { type: "string", placeholder: "N", description: "at most N conversations (default 20, at most 500)" },
        json,
      },
      summary: "recent conversations (newest first)",
    },
    { name: "show", args: "<session-id>", positionals: [1, 1], options: { json }, summary: "one conversation's transcript" },
  ],
};
