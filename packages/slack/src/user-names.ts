import type { webApi } from "@slack/bolt";
import type { Logger } from "@hermes/agent";
import { platformErrorCode } from "./web-api-failure.js";

export interface UserNamesOptions {
  /** Asks Slack for a user's display name (users.info); may throw the WebClient's errors. */
  lookup: (userId: string) => Promise<string | undefined>;
  logger: Logger;
  now: () => number;
  ttlMs?: number;
  capacity?: number;
}

// Without these the lookup can never succeed, so asking again for every message would only cost time.
const PERMANENT_ERRORS: ReadonlySet<string> = new Set(["missing_scope", "not_allowed_token_type", "invalid_auth", "account_inactive", "token_revoked"]);

/**
 * Display names for the `[sender]` prefix of shared thread sessions. Slack events carry only user ids, so names are
 * looked up once and cached; a failed lookup just leaves the name out.
 */
export class UserNames {
  private readonly cache = new Map<string, { name: string | undefined; at: number }>();
  private readonly pending = new Map<string, Promise<string | undefined>>();
  private disabled = false;
  private readonly ttlMs: number;
  private readonly capacity: number;

  constructor(private readonly options: UserNamesOptions) {
    this.ttlMs = options.ttlMs ?? 60 * 60 * 1000;
    this.capacity = options.capacity ?? 5_000;
  }

  /**
   * The name when it is cached or Slack answers within `waitMs`; otherwise the name known so far (possibly expired, or
   * none), while the lookup goes on and fills the cache for later messages. Keeps a slow users.info from delaying
   * the point where a message is persisted (and Slack is answered).
   */
  async nameWithin(userId: string, waitMs: number): Promise<string | undefined> {
    const cached = this.cache.get(userId);
    if ((cached && this.options.now() - cached.at < this.ttlMs) || this.disabled) return cached?.name;
    let lookup = this.pending.get(userId);
    if (!lookup) {
      const started = this.nameOf(userId).finally(() => this.pending.delete(userId));
      this.pending.set(userId, started);
      lookup = started;
    }
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<{ late: true }>((resolve) => {
      timer = setTimeout(() => resolve({ late: true }), waitMs);
      timer.unref();
    });
    const first = await Promise.race([lookup.then((name) => ({ late: false as const, name })), waited]);
    clearTimeout(timer);
    return first.late ? cached?.name : first.name;
  }

  async nameOf(userId: string): Promise<string | undefined> {
    const cached = this.cache.get(userId);
    if (cached && this.options.now() - cached.at < this.ttlMs) return cached.name;
    if (this.disabled) return cached?.name;
    try {
      const name = await this.options.lookup(userId);
      this.store(userId, name);
      return name;
    } catch (error) {
      const code = platformErrorCode(error);
      if (code !== undefined && PERMANENT_ERRORS.has(code)) {
        this.disabled = true;
        this.options.logger.warn("slack user names unavailable; senders are shown by id (grant the users:read scope)", { error: code });
      } else {
        this.options.logger.debug("slack user name lookup failed", { userId, error: error instanceof Error ? error.message : String(error) });
      }
      return cached?.name;
    }
  }

  private store(userId: string, name: string | undefined): void {
    this.cache.delete(userId);
    this.cache.set(userId, { name, at: this.options.now() });
    if (this.cache.size > this.capacity) {
      const oldest = this.cache.keys().next();
      if (!oldest.done) this.cache.delete(oldest.value);
    }
  }
}

/** A user's name as Slack shows it: display name, else real name, else user name. */
export async function slackUserName(client: webApi.WebClient, user: string): Promise<string | undefined> {
  const info = await client.users.info({ user });
  const profile = info.user?.profile;
  return profile?.display_name || profile?.real_name || info.user?.real_name || info.user?.name || undefined;
}
