import { describe, expect, it } from "vitest";
import { StreamedText } from "./streamed-text.js";

function deltas(updates: string[], final: string): string[] {
  const streamed = new StreamedText();
  return [...updates.map((text) => streamed.update(text)), streamed.finish(final)];
}

describe("StreamedText", () => {
  it("sends what each update adds and the final reply's remainder", () => {
    expect(deltas(["Hel", "Hello, wo", "Hello, wo"], "Hello, world.")).toEqual(["Hel", "lo, wo", "", "rld."]);
  });

  it("joins a new step to what was sent with a blank line, once its text starts", () => {
    // A step's text, then a status-only update (the tool runs: no text), then the next step's text.
    expect(deltas(["Let me check.", "", "It is", "It is 5."], "It is 5.")).toEqual(["Let me check.", "", "\n\nIt is", " 5.", ""]);
  });

  it("sends a final reply that does not continue the stream as one more step", () => {
    expect(deltas(["Draft answer"], "Something else")).toEqual(["Draft answer", "\n\nSomething else"]);
  });

  it("sends the whole reply when nothing was streamed", () => {
    expect(deltas([], "All at once.")).toEqual(["All at once."]);
  });
});
