import { describe, expect, it } from "vitest";
import { isStoreUnavailableError } from "./unavailable.js";

const coded = (message: string, code: string): Error => Object.assign(new Error(message), { code });

describe("isStoreUnavailableError", () => {
  it("knows a database out of reach: a restart, a failover, a cut or refused connection, a lock still taken", () => {
    for (const error of [
      coded("terminating connection due to administrator command", "57P01"),
      coded("the database system is starting up", "57P03"),
      coded("sorry, too many clients already", "53300"),
      coded("connection failure", "08006"),
      coded("connect ECONNREFUSED 127.0.0.1:5432", "ECONNREFUSED"),
      coded("read ECONNRESET", "ECONNRESET"),
      new Error("Connection terminated unexpectedly"),
      new Error("timeout exceeded when trying to connect"),
      coded('database "hermes" is not currently accepting connections', "55000"),
      coded("database is locked", "SQLITE_BUSY"),
      coded("could not serialize access due to concurrent update", "40001"),
    ]) {
      expect({ message: error.message, unavailable: isStoreUnavailableError(error) }).toEqual({ message: error.message, unavailable: true });
    }
  });

  it("does not take a failure of what was asked for one", () => {
    for (const error of [
      coded('duplicate key value violates unique constraint "inbound_platform_message"', "23505"),
      coded('relation "nowhere" does not exist', "42P01"),
      coded("object not in prerequisite state", "55000"),
      coded("SQLITE_CONSTRAINT: UNIQUE constraint failed", "SQLITE_CONSTRAINT"),
      new Error("bug"),
      "not an error",
    ]) {
      expect(isStoreUnavailableError(error)).toBe(false);
    }
  });
});
