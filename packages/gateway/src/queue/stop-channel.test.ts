import { describe, expect, it } from "vitest";
import { parseStopMessage } from "./stop-channel.js";

describe("parseStopMessage", () => {
  it("reads the session key of a stop request", () => {
    expect(parseStopMessage(JSON.stringify({ sessionKey: "agent:main:slack:dm:D1" }))).toBe("agent:main:slack:dm:D1");
  });

  it("rejects anything else another Redis client might publish", () => {
    for (const raw of ["", "not json", "null", "[]", '"s"', "{}", '{"sessionKey":""}', '{"sessionKey":7}']) {
      expect(parseStopMessage(raw)).toBeUndefined();
    }
  });
});
