import type { GroupSpec } from "../cli/command-spec.js";

export const HOOKS_GROUP: GroupSpec = {
  name: "hooks",
  summary: "manage lifecycle hooks; a running gateway picks changes up by itself",
  subcommands: [
    {
      name: "list",
      positionals: [0, 0],
      options: { json: { type: "boolean", description: "print JSON instead of a table" } },
      summary: "show every hook: enabled or not, bundled or yours, its events and any problem",
    },
    { name: "enable", args: "<name>", positionals: [1, 1], summary: "turn a hook on  (a running gateway applies it without a restart)" },
    { name: "disable", args: "<name>", positionals: [1, 1], summary: "turn a hook off (likewise)" },
    {
      name: "install",
      args: "<folder>",
      positionals: [1, 1],
      options: { force: { type: "boolean", description: "replace a hook already installed under that name" } },
      summary: "check a hook folder and copy it to $HERMES_HOME/hooks/<name>/",
    },
    { name: "test", args: "<name> [event-type]", positionals: [1, 2], summary: "send the hook a sample event and show its result and the time it took" },
  ],
  details:
    "A hook is a folder with HOOK.yaml and handler.js, handler.mjs or handler.ts. Yours live in $HERMES_HOME/hooks/\nand replace a bundled hook of the same name.",
};
