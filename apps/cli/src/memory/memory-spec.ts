import type { GroupSpec } from "../cli/command-spec.js";

export const MEMORY_GROUP: GroupSpec = {
  name: "memory",
  summary: "what the bot remembers about one person (their MEMORY.md and USER.md), shown or erased",
  subcommands: [
    {
      name: "show",
      args: "<platform:userId>",
      positionals: [1, 1],
      options: { json: { type: "boolean", description: "print JSON instead of text" } },
      summary: "the person's memory entries",
    },
    { name: "forget", args: "<platform:userId>", positionals: [1, 1], summary: "erase the person's memory files and what the memory provider keeps for them" },
  ],
  details:
    "The files are $HERMES_HOME/memory/users/<platform>/<userId>/ (HERMES_MEMORY_SCOPE=user). Notes of shared chats\n" +
    "(memory/chats/…) and, with HERMES_MEMORY_SCOPE=shared, the global files are not anyone's own and are left alone.\n" +
    "With HERMES_DATABASE_URL the same files are rows of the database (memory_documents), read and erased there.",
};
