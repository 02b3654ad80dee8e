import { describe, expect, it } from "vitest";
import { silentLogger } from "@hermes/agent";
import { UserNames } from "./user-names.js";

function platformError(error: string): Error {
  return Object.assign(new Error(`An API error occurred: ${error}`), { code: "slack_webapi_platform_error", data: { ok: false, error } });
}

describe("UserNames", () => {
  it("looks a name up once and serves it from the cache until it expires", async () => {
    let now = 0;
    const asked: string[] = [];
    const names = new UserNames({ lookup: async (id) => (asked.push(id), `name-${id}`), logger: silentLogger, now: () => now, ttlMs: 1000 });
    expect(await names.nameOf("U1")).toBe("name-U1");
    expect(await names.nameOf("U1")).toBe("name-U1");
    now = 1001;
    expect(await names.nameOf("U1")).toBe("name-U1");
    expect(asked).toEqual(["U1", "U1"]);
  });

  it("stops asking when the token can never read users", async () => {
    let calls = 0;
    const names = new UserNames({
      lookup: async () => {
        calls += 1;
        throw platformError("missing_scope");
      },
      logger: silentLogger,
      now: () => 0,
    });
    expect(await names.nameOf("U1")).toBeUndefined();
    expect(await names.nameOf("U2")).toBeUndefined();
    expect(calls).toBe(1);
  });

  it("tries again after a passing failure", async () => {
    let calls = 0;
    const names = new UserNames({
      lookup: async () => {
        calls += 1;
        if (calls === 1) throw new Error("socket hang up");
        return "Ada";
      },
      logger: silentLogger,
      now: () => 0,
    });
    expect(await names.nameOf("U1")).toBeUndefined();
    expect(await names.nameOf("U1")).toBe("Ada");
  });

  it("does not wait for a lookup past the given time, and serves its answer from the cache later", async () => {
    let answer = (_name: string): void => {};
    const asked: string[] = [];
    const names = new UserNames({
      lookup: (id) => {
        asked.push(id);
        return new Promise<string>((resolve) => {
          answer = resolve;
        });
      },
      logger: silentLogger,
      now: () => 0,
    });
    expect(await names.nameWithin("U1", 0)).toBeUndefined();
    const waiting = names.nameWithin("U1", 60_000);
    answer("Ada");
    expect(await waiting).toBe("Ada");
    expect(await names.nameWithin("U1", 0)).toBe("Ada");
    expect(asked).toEqual(["U1"]);
  });
});
