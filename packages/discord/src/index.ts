export {
  createDiscordAdapter,
  DEFAULT_MAX_ATTACHMENT_BYTES,
  DISCORD_INTENTS,
  DISCORD_TEXT_LIMIT,
  type DiscordAdapterDeps,
} from "./discord-adapter.js";
export { DEFAULT_DISCORD_API, restBaseFrom } from "./rest-base.js";
export { DISCORD_PLATFORM } from "./normalize.js";
export { DEFAULT_RECONNECT_BACKOFF, type ReconnectBackoff } from "./reconnect-backoff.js";
