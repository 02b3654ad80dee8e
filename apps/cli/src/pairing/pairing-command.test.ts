import { silentLogger } from "@hermes/agent";
import { MemoryPairingStore, PairingService } from "@hermes/gateway";
import { beforeEach, describe, expect, it } from "vitest";
import { runPairingCommand } from "./pairing-command.js";

const MINUTE = 60_000;
const START = Date.UTC(2025, 0, 1, 12, 0, 0);

interface Run {
  exitCode: number;
  stdout: string;
  stderr: string;
}

describe("hermes pairing", () => {
  let now: number;
  let store: MemoryPairingStore;
  let service: PairingService;

  const run = async (...args: string[]): Promise<Run> => {
    let stdout = "";
    let stderr = "";
    const exitCode = await runPairingCommand(args, {
      stdout: { write: (text: string) => (stdout += text) },
      stderr: { write: (text: string) => (stderr += text) },
      service,
    });
    return { exitCode, stdout, stderr };
  };

  const requestCode = async (user: { platform: string; userId: string; userName?: string }): Promise<string> => {
    const outcome = await service.requestCode({ ...user, chatId: user.userId });
    if (outcome.kind !== "code_issued") throw new Error(`expected a code, got ${outcome.kind}`);
    return outcome.code;
  };

  beforeEach(() => {
    now = START;
    store = new MemoryPairingStore();
    service = new PairingService({ store, now: () => now, logger: silentLogger });
  });

  describe("approve", () => {
    it("approves a code typed in lower case and names the user", async () => {
      const code = await requestCode({ platform: "telegram", userId: "101", userName: "Alice" });
      expect(await run("approve", "telegram", code.toLowerCase())).toEqual({ exitCode: 0, stdout: "Approved Alice (telegram:101)\n", stderr: "" });
      expect(await store.isApproved("telegram", "101")).toBe(true);
    });

    it("accepts a code split over two arguments and a capitalised platform", async () => {
      const code = await requestCode({ platform: "discord", userId: "202" });
      const result = await run("approve", "Discord", code.slice(0, 4), code.slice(4));
      expect(result).toEqual({ exitCode: 0, stdout: "Approved discord:202\n", stderr: "" });
    });

    it("exits 1 with a clear message for a wrong code", async () => {
      await requestCode({ platform: "telegram", userId: "101" });
      const result = await run("approve", "telegram", "WXYZ2345");
      expect(result.exitCode).toBe(1);
      expect(result.stdout).toBe("");
      expect(result.stderr).toMatch(/^No pending telegram request matches that code\./);
      expect(result.stderr).toContain("hermes pairing list telegram");
    });

    it("says when a failure locked approvals, and when to retry while locked", async () => {
      const code = await requestCode({ platform: "telegram", userId: "101" });
      for (let attempt = 0; attempt < 4; attempt++) expect((await run("approve", "telegram", "WXYZ2345")).exitCode).toBe(1);
      const fifth = await run("approve", "telegram", "WXYZ2345");
      expect(fifth.exitCode).toBe(1);
      expect(fifth.stderr).toContain("Too many failed attempts: approvals for telegram are locked for 60 minutes.");

      now += 15 * MINUTE;
      const locked = await run("approve", "telegram", code);
      expect(locked).toEqual({
        exitCode: 1,
        stdout: "",
        stderr: "Approvals for telegram are locked after too many failed attempts. Try again in 45 minutes.\n",
      });
      expect(await store.isApproved("telegram", "101")).toBe(false);
    });

    it("refuses unknown platforms and missing arguments as usage errors", async () => {
      const unknown = await run("approve", "irc", "ABCD2345");
      expect(unknown.exitCode).toBe(2);
      expect(unknown.stderr).toContain('Unknown platform "irc" (known: telegram, discord, slack, console)');
      expect(unknown.stderr).toContain("Usage: hermes pairing");
      expect((await run("approve", "telegram")).exitCode).toBe(2);
      expect((await run("approve")).exitCode).toBe(2);
    });
  });

  describe("list", () => {
    it("shows pending requests and approved users, never codes", async () => {
      const aliceCode = await requestCode({ platform: "telegram", userId: "101", userName: "Alice" });
      now += MINUTE;
      const bobCode = await requestCode({ platform: "slack", userId: "U2", userName: "Bob" });
      await service.approve("telegram", aliceCode);

      const result = await run("list");
      expect(result.exitCode).toBe(0);
      expect(result.stdout).toBe(
        [
          "Pending requests (1):",
          "  Bob (slack:U2)  requested 2025-01-01 12:01 UTC, expires 2025-01-01 13:01 UTC",
          "Approved users (1):",
          "  Alice (telegram:101)  approved 2025-01-01 12:01 UTC",
          "",
          "Approve one with: hermes pairing approve <platform> <code the user was sent>",
          "",
        ].join("\n"),
      );
      expect(result.stdout).not.toContain(aliceCode);
      expect(result.stdout).not.toContain(bobCode);
    });

    it("filters by platform and says when there is nothing", async () => {
      await requestCode({ platform: "slack", userId: "U2" });
      const result = await run("list", "telegram");
      expect(result).toEqual({ exitCode: 0, stdout: "Pending requests (0):\n  none\nApproved users (0):\n  none\n", stderr: "" });
    });

    it("keeps terminal control characters in user names away from the terminal", async () => {
      await requestCode({ platform: "telegram", userId: "101", userName: "Mal\u001b[2Jlory\u202e" });
      const result = await run("list");
      expect(result.stdout).toContain("Mal?[2Jlory? (telegram:101)");
      expect(result.stdout).not.toContain("\u001b");
    });

    it("refuses an unknown platform or extra arguments", async () => {
      expect((await run("list", "matrix")).exitCode).toBe(2);
      expect((await run("list", "telegram", "slack")).exitCode).toBe(2);
    });
  });

  describe("revoke", () => {
    it("revokes an approved user", async () => {
      await service.approve("telegram", await requestCode({ platform: "telegram", userId: "101" }));
      expect(await run("revoke", "telegram", "101")).toEqual({ exitCode: 0, stdout: "Revoked telegram:101\n", stderr: "" });
      expect(await store.isApproved("telegram", "101")).toBe(false);
    });

    it("exits 1 for a user who is not approved", async () => {
      const result = await run("revoke", "telegram", "999");
      expect(result.exitCode).toBe(1);
      expect(result.stderr).toContain("telegram:999 is not an approved user");
    });

    it("needs exactly a platform and a user id", async () => {
      expect((await run("revoke", "telegram")).exitCode).toBe(2);
      expect((await run("revoke", "telegram", "1", "2")).exitCode).toBe(2);
      expect((await run("revoke", "fax", "1")).exitCode).toBe(2);
    });
  });

  it("prints usage for help, and exits 2 for a missing or unknown command", async () => {
    const help = await run("help");
    expect(help.exitCode).toBe(0);
    expect(help.stdout).toContain("approve <platform> <code>");
    expect(help.stdout).toContain("revoke <platform> <userId>");

    const missing = await run();
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toContain("Missing pairing command.");

    const unknown = await run("aprove");
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toContain('Unknown pairing command "aprove".');
  });
});
