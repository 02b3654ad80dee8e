import { describe, expect, it } from "vitest";
import { componentsOf } from "./buttons.js";
import { editedMessageBody, outboundMessageBody } from "./outbound-body.js";

describe("componentsOf", () => {
  it("makes one row of at most five buttons, styled, with long labels shortened but never the value", () => {
    const buttons = Array.from({ length: 6 }, (_, i) => ({ label: `${"L".repeat(90)}${i}`, value: `/approve ${i}`, ...(i === 0 ? { style: "danger" as const } : {}) }));
    const [row, ...others] = componentsOf(buttons);
    expect(others).toEqual([]);
    expect(row?.components).toHaveLength(5);
    expect(row?.components[0]).toEqual({ type: 2, custom_id: "/approve 0", label: "L".repeat(80), style: 4 });
    expect(componentsOf(undefined)).toEqual([]);
    expect(componentsOf([])).toEqual([]);
  });

  it("adds components to a send only when there are buttons, and always to an edit", () => {
    expect(outboundMessageBody("hi", undefined, undefined, [])).not.toHaveProperty("components");
    expect(outboundMessageBody("hi", undefined, undefined, [{ label: "Go", value: "/go", style: "primary" }]).components).toHaveLength(1);
    expect(editedMessageBody("done")).toEqual({ content: "done", allowed_mentions: { parse: [], replied_user: false }, components: [] });
  });
});
