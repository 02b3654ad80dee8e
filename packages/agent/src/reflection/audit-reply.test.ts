import { describe, expect, it } from "vitest";
import { parseAuditReply } from "./audit-reply.js";
import { jsonObjectsIn } from "./json-extract.js";
import { auditJson, researchFramework } from "./test-fixtures.js";

const ids = (dimensions: Array<{ id: string }>) => dimensions.map((dimension) => dimension.id);

describe("parseAuditReply", () => {
  it("reads plain JSON into covered and missing dimensions in framework order", () => {
    const reply = auditJson({ missing: ["counter-evidence"], covered: ["recency-checked", "sources-cited"], learnings: ["Name a dissenting study."] });
    const parsed = parseAuditReply(reply, researchFramework);
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.result.frameworkId).toBe("research-answer-quality");
    expect(ids(parsed.result.covered)).toEqual(["sources-cited", "recency-checked"]);
    expect(ids(parsed.result.missing)).toEqual(["counter-evidence"]);
    expect(parsed.result.learnings).toEqual(["Name a dissenting study."]);
    expect(parsed.result.evidence["counter-evidence"]).toBe("counter-evidence was not done");
  });

  it("finds the JSON inside a code fence or between prose", () => {
    const json = auditJson({ covered: ["sources-cited"], missing: ["recency-checked"] });
    for (const reply of [`\`\`\`json\n${json}\n\`\`\``, `Here is my audit:\n${json}\nHope this helps {really}.`, `Sure! \`\`\`\n${json}\n\`\`\` Done.`]) {
      const parsed = parseAuditReply(reply, researchFramework);
      expect(parsed.ok).toBe(true);
      if (parsed.ok) expect([ids(parsed.result.covered), ids(parsed.result.missing)]).toEqual([["sources-cited"], ["recency-checked"]]);
    }
  });

  it("ignores unknown ids, odd statuses, repeated verdicts and unusable learnings", () => {
    const reply = JSON.stringify({
      dimensions: [
        { id: "made-up", status: "missing" },
        { id: "sources-cited", status: "partial" },
        { id: "recency-checked", status: " Covered " },
        { id: "recency-checked", status: "missing" },
        "junk",
        { id: "counter-evidence", status: "missing", evidence: 42 },
      ],
      learnings: ["  Check   dates. ", 7, "", "x".repeat(500)],
    });
    const parsed = parseAuditReply(reply, researchFramework);
    expect(parsed).toMatchObject({ ok: true });
    if (!parsed.ok) return;
    expect(ids(parsed.result.covered)).toEqual(["recency-checked"]);
    expect(ids(parsed.result.missing)).toEqual(["counter-evidence"]);
    expect(parsed.result.learnings).toEqual(["Check dates."]);
  });

  it("returns an error value for garbage, a missing list or no usable verdict", () => {
    expect(parseAuditReply("I could not audit this conversation.", researchFramework)).toEqual({ ok: false, error: "the audit reply contains no JSON object" });
    expect(parseAuditReply('{"verdicts": []}', researchFramework)).toMatchObject({ ok: false, error: expect.stringContaining('no "dimensions"') });
    expect(parseAuditReply('{"dimensions": [{"id": "nope", "status": "covered"}]}', researchFramework)).toMatchObject({
      ok: false,
      error: expect.stringContaining("no verdict"),
    });
    expect(parseAuditReply('{"dimensions": [', researchFramework)).toMatchObject({ ok: false });
  });
});

describe("jsonObjectsIn", () => {
  it("skips braces inside strings and ignores arrays and unbalanced text", () => {
    expect(jsonObjectsIn('note {"a": "}{", "b": {"c": 1}} tail')).toEqual([{ a: "}{", b: { c: 1 } }, { c: 1 }]);
    expect(jsonObjectsIn("[1, 2]")).toEqual([]);
    expect(jsonObjectsIn("{ unbalanced")).toEqual([]);
  });
});
