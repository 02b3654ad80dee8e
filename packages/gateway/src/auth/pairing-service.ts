import { randomBytes } from "node:crypto";
import type { Logger } from "@hermes/agent";
import { ALLOWLIST_PLATFORMS } from "../config/allowlist.js";
import { approvalLockout, forgetFailedApprovals, recordFailedApproval } from "./approval-lockout.js";
import { hashPairingCode, PAIRING_SALT_BYTES, pairingCodeMatches } from "./code-hash.js";
import { generatePairingCode, normalizePairingCode, type RandomBytes } from "./pairing-code.js";
import { APPROVED_NOTICE, MAX_PENDING_PER_PLATFORM, PAIRING_CODE_TTL_MS, PAIRING_REQUEST_INTERVAL_MS } from "./pairing-rules.js";
import type { ApprovedUserRecord, PairingStoreLike } from "./pairing-store.js";
import { RecentPairingReplies } from "./recent-pairing-replies.js";

export interface PairingUser {
  platform: string;
  userId: string;
  userName?: string;
  /** The DM the request came from, where the user hears about the approval. */
  chatId: string;
}

export type PairingOutcome =
  | { kind: "code_issued"; code: string; expiresAt: number }
  /** The stranger was answered less than `PAIRING_REQUEST_INTERVAL_MS` ago: say nothing this time. */
  | { kind: "recently_answered" };

export type ApprovalResult =
  /** `notified`: the "you can start" notice is queued for the user's DM (the running gateway sends it). */
  | { ok: true; user: PairingUser; notified: boolean }
  /** `retryAfterMs` on `invalid_code` means this very attempt locked the platform. */
  | { ok: false; error: "locked_out" | "invalid_code"; retryAfterMs?: number };

export interface PendingPairing {
  platform: string;
  userId: string;
  userName?: string;
  createdAt: number;
  expiresAt: number;
}

export interface PairingOverview {
  pending: PendingPairing[];
  approved: ApprovedUserRecord[];
}

/** Where approval notices go: the outbox the running gateway delivers from (the CLI approves in another process). */
export interface ApprovalNotices {
  enqueue(notice: { platform: string; chatId: string; text: string; kind: "notice" }): Promise<unknown>;
}

export interface PairingServiceOptions {
  store: PairingStoreLike;
  /** Without it, approved users are not told (they find out when they write again). */
  notices?: ApprovalNotices;
  now?: () => number;
  random?: RandomBytes;
  logger: Logger;
}

/** DM pairing: strangers get a one-time code, the operator approves it from the CLI, approved users may talk. */
export class PairingService {
  private readonly store: PairingStoreLike;
  private readonly now: () => number;
  private readonly random: RandomBytes;
  private readonly logger: Logger;
  private readonly notices: ApprovalNotices | undefined;
  private readonly recentReplies = new RecentPairingReplies();
  private readonly platformQueues = new Map<string, Promise<unknown>>();

  constructor(options: PairingServiceOptions) {
    this.store = options.store;
    this.now = options.now ?? Date.now;
    this.random = options.random ?? randomBytes;
    this.logger = options.logger.child({ component: "pairing" });
    this.notices = options.notices;
  }

  requestCode(user: PairingUser): Promise<PairingOutcome> {
    // Two messages from one stranger can arrive together; checked and issued one at a time, they get one code, and
    // the per-platform limit cannot be overrun by a burst.
    return this.oneAtATime(user.platform, () => this.issueCode(user));
  }

  private async issueCode(user: PairingUser): Promise<PairingOutcome> {
    const now = this.now();
    await this.store.purgeExpired(now);
    const latest = await this.store.latestRequestForUser(user.platform, user.userId);
    const codeIsRecent = latest !== undefined && latest.expiresAt > now && now - latest.createdAt < PAIRING_REQUEST_INTERVAL_MS;
    if (codeIsRecent || this.recentReplies.repliedRecently(user.platform, user.userId, now)) return { kind: "recently_answered" };

    const pending = await this.store.pendingRequests(user.platform, now);
    const own = pending.filter((request) => request.userId === user.userId);
    const others = pending.filter((request) => request.userId !== user.userId);
    const code = generatePairingCode(this.random);
    const hashed = await hashPairingCode(code, this.random(PAIRING_SALT_BYTES));
    const expiresAt = now + PAIRING_CODE_TTL_MS;
    const { platform, userId, userName, chatId } = user;
    const request = { platform, userId, chatId, ...hashed, createdAt: now, expiresAt };
    const created = await this.store.createRequest(userName === undefined ? request : { ...request, userName });
    // The user can no longer see the old code once a new one is issued; one live request per user also keeps a
    // single person from holding more than one of the platform's slots.
    for (const superseded of own) await this.store.deleteRequest(superseded.id);
    // `pending` is oldest first: the oldest requests give way so the newest always fits.
    const crowdedOut = others.slice(0, Math.max(0, others.length + 1 - MAX_PENDING_PER_PLATFORM));
    for (const oldest of crowdedOut) await this.store.deleteRequest(oldest.id);
    if (crowdedOut.length > 0) {
      this.logger.warn("pairing requests expired early to make room", {
        platform,
        expired: crowdedOut.map((request) => request.userId),
        limit: MAX_PENDING_PER_PLATFORM,
        hint: `hermes pairing list ${platform}`,
      });
    }
    this.recentReplies.record(platform, userId, now);
    this.logger.info("pairing code issued", { platform, userId, userName, requestId: created.id, expiresAt });
    return { kind: "code_issued", code, expiresAt };
  }

  async approve(platform: string, typedCode: string): Promise<ApprovalResult> {
    const now = this.now();
    // Checked before any lookup, or a lucky guess during the lock-out would still get through.
    const lockout = await approvalLockout(this.store, platform, now);
    if (lockout.locked) return { ok: false, error: "locked_out", retryAfterMs: lockout.retryAfterMs };

    const code = normalizePairingCode(typedCode);
    if (code !== undefined) {
      for (const request of await this.store.pendingRequests(platform, now)) {
        if (!(await pairingCodeMatches(code, request))) continue;
        // Of two approvals of one code at once (two CLI processes), only the one that removed the request tells the user.
        const first = await this.store.deleteRequest(request.id);
        const named = request.userName === undefined ? {} : { userName: request.userName };
        await this.store.approve({ platform, userId: request.userId, ...named }, now);
        const user: PairingUser = { platform, userId: request.userId, ...named, chatId: request.chatId };
        await forgetFailedApprovals(this.store, platform);
        const notified = first && (await this.notifyApproved(user));
        this.logger.info("pairing approved", { platform, userId: user.userId, userName: user.userName, notified });
        return { ok: true, user, notified };
      }
    }

    // A malformed code counts too: the lock-out limits guesses of any shape.
    const lockoutNow = await recordFailedApproval(this.store, platform, now);
    if (!lockoutNow.locked) {
      this.logger.warn("pairing approval failed: no pending request matches the code", { platform });
      return { ok: false, error: "invalid_code" };
    }
    this.logger.warn("pairing approvals locked after repeated failures", { platform, retryAfterMs: lockoutNow.retryAfterMs });
    return { ok: false, error: "invalid_code", retryAfterMs: lockoutNow.retryAfterMs };
  }

  /** Pending requests and approved users; codes are never part of it (they are not stored). */
  async list(platform?: string): Promise<PairingOverview> {
    const now = this.now();
    const platforms = platform === undefined ? ALLOWLIST_PLATFORMS : [platform];
    const pending: PendingPairing[] = [];
    for (const name of platforms) {
      for (const request of await this.store.pendingRequests(name, now)) {
        const entry: PendingPairing = {
          platform: request.platform,
          userId: request.userId,
          createdAt: request.createdAt,
          expiresAt: request.expiresAt,
        };
        if (request.userName !== undefined) entry.userName = request.userName;
        pending.push(entry);
      }
    }
    return { pending, approved: await this.store.listApproved(platform) };
  }

  async revoke(platform: string, userId: string): Promise<boolean> {
    const revoked = await this.store.revoke(platform, userId);
    if (revoked) this.logger.info("pairing revoked", { platform, userId });
    return revoked;
  }

  private async notifyApproved(user: PairingUser): Promise<boolean> {
    if (this.notices === undefined) return false;
    try {
      await this.notices.enqueue({ platform: user.platform, chatId: user.chatId, text: APPROVED_NOTICE, kind: "notice" });
      return true;
    } catch (error) {
      // The approval itself stands; the user finds out the next time they write.
      this.logger.warn("approved, but the notice to the user could not be queued", { platform: user.platform, userId: user.userId, error });
      return false;
    }
  }

  private oneAtATime<T>(platform: string, task: () => Promise<T>): Promise<T> {
    const previous = this.platformQueues.get(platform) ?? Promise.resolve();
    const result = previous.then(task);
    const settled = result.then(
      () => undefined,
      () => undefined,
    );
    this.platformQueues.set(platform, settled);
    void settled.then(() => {
      if (this.platformQueues.get(platform) === settled) this.platformQueues.delete(platform);
    });
    return result;
  }
}
