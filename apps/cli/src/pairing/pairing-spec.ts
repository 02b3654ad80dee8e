import type { GroupSpec } from "../cli/command-spec.js";

// Kept in step with ALLOWLIST_PLATFORMS by a test; importing it here would load the whole gateway for `--help`.
export const PAIRING_PLATFORMS = ["telegram", "discord", "slack", "console"] as const;

const json = { type: "boolean", description: "print JSON instead of text" } as const;

export const PAIRING_GROUP: GroupSpec = {
  name: "pairing",
  summary: "let people who asked for access talk to the bot, list them, or take access away",
  subcommands: [
    { name: "approve", args: "<platform> <code>", positionals: [2, Number.POSITIVE_INFINITY], summary: "let the person who was sent this code talk to the bot" },
    { name: "list", args: "[platform]", positionals: [0, 1], options: { json }, summary: "show pending requests and approved users (codes are never stored, so never shown)" },
    { name: "revoke", args: "<platform> <userId>", positionals: [2, 2], summary: "take an approved user's access away" },
  ],
  details: `Platforms: ${PAIRING_PLATFORMS.join(", ")}`,
};
