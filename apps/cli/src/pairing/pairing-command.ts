import { ALLOWLIST_PLATFORMS } from "@hermes/gateway";
import { booleanOption, type ParsedCommand } from "../cli/command-spec.js";
import { parseGroupArgs } from "../cli/parse-command-line.js";
import { settle } from "../cli/settle.js";
import { formatGroupHelp } from "../cli/usage.js";
import { PAIRING_GROUP } from "./pairing-spec.js";

/** The part of the gateway's `PairingService` the command uses. */
export interface PairingCommandService {
  approve(
    platform: string,
    code: string,
  ): Promise<
    | { ok: true; user: { platform: string; userId: string; userName?: string }; notified?: boolean }
    | { ok: false; error: "locked_out" | "invalid_code"; retryAfterMs?: number }
  >;
  list(platform?: string): Promise<{
    pending: Array<{ platform: string; userId: string; userName?: string; createdAt: number; expiresAt: number }>;
    approved: Array<{ platform: string; userId: string; userName?: string; approvedAt: number }>;
  }>;
  revoke(platform: string, userId: string): Promise<boolean>;
}

export interface PairingCommandIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  service: PairingCommandService;
}

const PLATFORMS: readonly string[] = ALLOWLIST_PLATFORMS;

export const PAIRING_USAGE = formatGroupHelp(PAIRING_GROUP);

type Parsed<T> = { ok: true; value: T } | { ok: false; problem: string };

/** `hermes pairing …` from its arguments: 0 done, 1 refused (bad code, lock-out, unknown user), 2 usage error. */
export function runPairingCommand(args: readonly string[], io: PairingCommandIo): Promise<number> {
  return settle(parseGroupArgs(PAIRING_GROUP, args), io, (command) => executePairingCommand(command, io));
}

/** Runs a `hermes pairing` command line that already fits `PAIRING_GROUP`. */
export function executePairingCommand(command: ParsedCommand, io: PairingCommandIo): Promise<number> {
  if (command.spec.name === "approve") return approve(command.positionals, io);
  if (command.spec.name === "list") return list(command.positionals, io, booleanOption(command.values, "json"));
  return revoke(command.positionals, io);
}

async function approve(args: readonly string[], io: PairingCommandIo): Promise<number> {
  const [platformArg, ...codeParts] = args;
  const platform = parsePlatform(platformArg);
  if (!platform.ok) return usageError(io, platform.problem);
  // A code read out as "ABCD 2345" arrives as two arguments.
  const code = codeParts.join("");
  if (code.trim() === "") return usageError(io, "Missing the pairing code: hermes pairing approve <platform> <code>.");

  const result = await io.service.approve(platform.value, code);
  if (result.ok) {
    io.stdout.write(`Approved ${userLabel(result.user)}\n`);
    if (result.notified === true) io.stdout.write("They will get a message that they can start chatting (the running gateway sends it).\n");
    return 0;
  }
  if (result.error === "locked_out") {
    const when = result.retryAfterMs === undefined ? "later" : `in ${duration(result.retryAfterMs)}`;
    io.stderr.write(`Approvals for ${platform.value} are locked after too many failed attempts. Try again ${when}.\n`);
    return 1;
  }
  io.stderr.write(
    `No pending ${platform.value} request matches that code. Check it (codes expire 1 hour after they are sent); ` +
      `"hermes pairing list ${platform.value}" shows who is waiting.\n`,
  );
  if (result.retryAfterMs !== undefined) {
    io.stderr.write(`Too many failed attempts: approvals for ${platform.value} are locked for ${duration(result.retryAfterMs)}.\n`);
  }
  return 1;
}

async function list(args: readonly string[], io: PairingCommandIo, json: boolean): Promise<number> {
  let platform: string | undefined;
  if (args[0] !== undefined) {
    const parsed = parsePlatform(args[0]);
    if (!parsed.ok) return usageError(io, parsed.problem);
    platform = parsed.value;
  }

  const overview = await io.service.list(platform);
  if (json) {
    io.stdout.write(`${JSON.stringify(overview, null, 2)}\n`);
    return 0;
  }
  const lines = [`Pending requests (${overview.pending.length}):`];
  if (overview.pending.length === 0) lines.push("  none");
  for (const request of overview.pending) {
    lines.push(`  ${userLabel(request)}  requested ${timestamp(request.createdAt)}, expires ${timestamp(request.expiresAt)}`);
  }
  lines.push(`Approved users (${overview.approved.length}):`);
  if (overview.approved.length === 0) lines.push("  none");
  for (const user of overview.approved) lines.push(`  ${userLabel(user)}  approved ${timestamp(user.approvedAt)}`);
  if (overview.pending.length > 0) lines.push("", "Approve one with: hermes pairing approve <platform> <code the user was sent>");
  io.stdout.write(`${lines.join("\n")}\n`);
  return 0;
}

async function revoke(args: readonly string[], io: PairingCommandIo): Promise<number> {
  const platform = parsePlatform(args[0]);
  if (!platform.ok) return usageError(io, platform.problem);
  const userId = args[1] ?? "";
  const label = userLabel({ platform: platform.value, userId });
  if (await io.service.revoke(platform.value, userId)) {
    io.stdout.write(`Revoked ${label}\n`);
    return 0;
  }
  io.stderr.write(`${label} is not an approved user; "hermes pairing list ${platform.value}" shows who is.\n`);
  return 1;
}

function parsePlatform(argument: string | undefined): Parsed<string> {
  if (argument === undefined || argument.trim() === "") return { ok: false, problem: "Missing the platform." };
  const platform = argument.trim().toLowerCase();
  if (PLATFORMS.includes(platform)) return { ok: true, value: platform };
  return { ok: false, problem: `Unknown platform ${JSON.stringify(printable(argument))} (known: ${PLATFORMS.join(", ")}).` };
}

function usageError(io: PairingCommandIo, problem: string): number {
  io.stderr.write(`${problem}\n\n${PAIRING_USAGE}\n`);
  return 2;
}

function userLabel(user: { platform: string; userId: string; userName?: string }): string {
  const id = `${user.platform}:${printable(user.userId)}`;
  const name = user.userName === undefined ? "" : printable(user.userName).trim();
  return name === "" ? id : `${name} (${id})`;
}

// Names and ids come from chat users; terminal escapes or bidi overrides in them must not reach the operator's terminal.
function printable(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, "?");
}

function timestamp(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

function duration(ms: number): string {
  const minutes = Math.max(1, Math.ceil(ms / 60_000));
  return minutes === 1 ? "1 minute" : `${minutes} minutes`;
}
