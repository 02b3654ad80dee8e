import { describe, expect, it } from "vitest";
import { EMPTY_PART, nextStreamAction, statusLine, statusRoom } from "./stream-layout.js";

describe("statusLine", () => {
  it("marks the status and cuts it to the room kept for it, never inside a surrogate pair", () => {
    expect(statusLine("Running terminal…", 80)).toBe("⏳ Running terminal…");
    expect(statusLine("Running terminal…", 10)).toBe("⏳ Runnin…");
    expect(statusLine("ab😀cd", 7)).toBe("⏳ ab…");
    expect(statusLine(undefined, 80)).toBeUndefined();
    expect(statusLine("x", 3)).toBeUndefined();
  });

  it("keeps a quarter of a small limit, at most 80", () => {
    expect(statusRoom(4096)).toBe(80);
    expect(statusRoom(40)).toBe(10);
  });
});

describe("nextStreamAction", () => {
  it("shows nothing while there is nothing to show", () => {
    expect(nextStreamAction({ text: " ", shown: [] }, 100)).toBeUndefined();
    expect(nextStreamAction({ text: "same", shown: ["same"] }, 100)).toBeUndefined();
  });

  it("keeps every message within the limit as a long text grows", () => {
    const words = Array.from({ length: 200 }, (_, index) => `word${index}`).join(" ");
    const shown: string[] = [];
    for (let end = 1; end <= words.length; end += 37) {
      for (let action = nextStreamAction({ text: words.slice(0, end), status: "Running terminal…", shown }, 50); action; action = nextStreamAction({ text: words.slice(0, end), status: "Running terminal…", shown }, 50)) {
        expect(action.text.length).toBeLessThanOrEqual(50);
        if (action.kind === "send") expect(action.part).toBe(shown.length);
        shown[action.part] = action.text;
      }
    }
    expect(shown.length).toBeGreaterThan(20);
    expect(shown.slice(0, -1).join(" ")).toBe(words.slice(0, shown.slice(0, -1).join(" ").length));
  });

  it("leaves a placeholder in the newest message when a new step's text is shorter than the messages already frozen", () => {
    expect(nextStreamAction({ text: "short", shown: ["frozen part", "live part"] }, 100)).toEqual({ kind: "edit", part: 1, text: EMPTY_PART });
    expect(nextStreamAction({ text: "short", status: "Running x…", shown: ["frozen part", "live part"] }, 100)).toEqual({ kind: "edit", part: 1, text: "⏳ Running x…" });
  });
});
