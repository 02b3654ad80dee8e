import type { CommandSpec } from "../cli/command-spec.js";

const text = (placeholder: string, description: string) => ({ type: "string", placeholder, description }) as const;

export const SETUP_SPEC: CommandSpec = {
  name: "setup",
  summary: "set up the model and chat platforms (checked online), saved to $HERMES_HOME/config.yaml",
  positionals: [0, 0],
  options: {
    model: text("<id>", "provider/model-id (e.g. anthropic/claude-sonnet-4-5), or a model id served at --base-url"),
    "base-url": text("<url>", "your own endpoint or a proxy, e.g. http://127.0.0.1:11434/v1 (Ollama)"),
    api: text("<name>", "the API --base-url speaks: openai-completions (default), openai-responses or anthropic-messages"),
    "api-key": text("<key>", "the model's API key (saved as the provider's key variable, or HERMES_API_KEY with --base-url)"),
    "telegram-token": text("<token>", "Telegram bot token from @BotFather"),
    "discord-token": text("<token>", "Discord bot token"),
    "slack-bot-token": text("<xoxb-…>", "Slack bot token"),
    "slack-app-token": text("<xapp-…>", "Slack app-level token (Socket Mode)"),
    "slack-signing-secret": text("<secret>", "Slack signing secret (events over HTTP)"),
    "redis-url": text("<url>", "redis://host:port to run agent runs through BullMQ workers"),
    yes: { type: "boolean", short: "y", description: "ask nothing, even on a terminal: save exactly what the options say" },
    "skip-checks": { type: "boolean", description: "save without checking the values online" },
  },
  details: [
    "On a terminal without options, a wizard asks for each value (secrets are never echoed). With options, or",
    "without a terminal, nothing is asked. Every value is checked online first (like hermes doctor); a failed check",
    "saves nothing and exits 1 unless --skip-checks. Keys already in config.yaml are kept; the file gets mode 0600.",
    "",
    "Examples: npm run hermes -- setup --model anthropic/claude-sonnet-4-5 --api-key sk-ant-… --telegram-token 123:abc",
    "          npm run hermes -- setup --base-url https://proxy.example/v1 --api anthropic-messages --model claude-x --api-key …",
  ].join("\n"),
};
