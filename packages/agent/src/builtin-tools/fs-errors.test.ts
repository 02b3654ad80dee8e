import { describe, expect, it } from "vitest";
import { errorCode, fsFailure, toolError } from "./fs-errors.js";

describe("fs errors", () => {
  it("reads the errno code of fs errors only", () => {
    expect(errorCode(Object.assign(new Error("x"), { code: "ENOENT" }))).toBe("ENOENT");
    expect(errorCode(new Error("plain"))).toBeUndefined();
    expect(errorCode("ENOENT")).toBeUndefined();
  });

  it("describes known and unknown codes without Node's message, which names real paths", () => {
    const denied = Object.assign(new Error("EACCES: permission denied, open '/real/secret/path'"), { code: "EACCES" });
    expect(fsFailure(denied, "notes.txt")).toEqual({
      content: "notes.txt cannot be accessed (permission denied).",
      isError: true,
      details: { code: "EACCES" },
    });
    const odd = Object.assign(new Error("odd"), { code: "EWEIRD" });
    expect(fsFailure(odd, "x").content).toBe("x could not be accessed (EWEIRD).");
  });

  it("rethrows errors that are not fs failures, since they are bugs", () => {
    const bug = new TypeError("undefined is not a function");
    expect(() => fsFailure(bug, "x")).toThrow(bug);
  });

  it("builds error results with optional details", () => {
    expect(toolError("nope")).toEqual({ content: "nope", isError: true });
    expect(toolError("nope", { a: 1 })).toEqual({ content: "nope", isError: true, details: { a: 1 } });
  });
});
