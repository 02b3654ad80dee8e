import { describe, it, expect } from "vitest";
import { redactSecrets } from "./redact.js";

// Fixtures are assembled from pieces so secret scanners do not mistake this file for a leak.
const token = (...parts: string[]): string => parts.join("");

const SAMPLE_SECRETS = {
  openAiProject: token("sk-", "proj-", "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"),
  openAiLegacy: token("sk-", "Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0Fe"),
  anthropic: token("sk-", "ant-", "api03-", "Qm9vYmFyQmF6UXV4", "-", "Zm9vYmFyYmF6cXV4eHl6", "AA"),
  slackBot: token("xoxb-", "123456789012", "-", "1234567890123", "-", "AbCdEfGhIjKlMnOpQrStUvWx"),
  slackUser: token("xoxp-", "123456789012", "-", "123456789013", "-", "987654321098", "-", "0a1b2c3d4e5f60718293a4b5c6d7e8f9"),
  slackApp: token("xapp-", "1-", "A0123456789", "-", "1234567890123", "-", "0123456789abcdef0123456789abcdef"),
  telegram: token("7123456789", ":", "AAH", "dqTcvCH1vGWJxfSeofSAs0K5PALDsawQ"),
  githubClassic: token("ghp_", "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"),
  githubFineGrained: token("github_pat_", "11ABCDEFG0", "123456789_", "aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789"),
  awsAccessKey: token("AKIA", "Z3XQ7PLM2RT9KW4B"),
  googleApiKey: token("AIza", "SyD3xAmPlE-K3yW1thEnoughCharsX12345"),
} as const;

describe("redactSecrets masks credential shapes", () => {
  it.each(Object.entries(SAMPLE_SECRETS))("masks a %s token", (_kind, secret) => {
    const text = `Request failed for credential ${secret} (see logs).`;
    const redacted = redactSecrets(text);
    expect(redacted).toBe("Request failed for credential [REDACTED] (see logs).");
  });

  it("masks the half-masked key that OpenAI echoes back", () => {
    expect(redactSecrets("401 Incorrect API key provided: sk-abc***xyz. You can find your API key at …")).toBe(
      "401 Incorrect API key provided: [REDACTED]. You can find your API key at …",
    );
  });

  it("masks a Telegram bot token inside an API URL", () => {
    const url = `https://api.telegram.org/bot${SAMPLE_SECRETS.telegram}/sendMessage`;
    expect(redactSecrets(`request to ${url} failed`)).toBe(
      "request to https://api.telegram.org/bot[REDACTED]/sendMessage failed",
    );
  });

  it("keeps the Bearer scheme but masks the token", () => {
    const jwt = token("eyJhbGciOiJIUzI1NiJ9", ".", "eyJzdWIiOiIxMjM0In0", ".", "c2lnbmF0dXJlMTIz");
    expect(redactSecrets(`Authorization: Bearer ${jwt}`)).toBe("Authorization: Bearer [REDACTED]");
    expect(redactSecrets("authorization: bearer abcdef0123456789")).toBe("authorization: bearer [REDACTED]");
  });

  it("masks long values after key=, token= and secret= but keeps the parameter name", () => {
    const hex = "0123456789abcdef0123456789abcdef";
    const base64 = "dGhpcyBpcyBhIHNlY3JldCB2YWx1ZQ==";
    expect(redactSecrets(`GET /v1/models?key=${hex}&alt=sse`)).toBe("GET /v1/models?key=[REDACTED]&alt=sse");
    expect(redactSecrets(`callback?access_token=${base64}`)).toBe("callback?access_token=[REDACTED]");
    expect(redactSecrets(`client_secret=${hex} rejected`)).toBe("client_secret=[REDACTED] rejected");
    expect(redactSecrets(`api_key=${hex}`)).toBe("api_key=[REDACTED]");
  });

  it("masks every secret when several appear together", () => {
    const text = `keys ${SAMPLE_SECRETS.openAiLegacy}, ${SAMPLE_SECRETS.slackBot} and ${SAMPLE_SECRETS.awsAccessKey}`;
    expect(redactSecrets(text)).toBe("keys [REDACTED], [REDACTED] and [REDACTED]");
  });
});

describe("redactSecrets leaves ordinary text alone", () => {
  it.each([
    "429 Rate limit reached for requests per min (RPM). Please try again in 20s.",
    "400 This model's maximum context length is 8192 tokens.",
    "Use Bearer authentication with your API key.",
    "task-management and risk-assessment workflows",
    "scikit-learn uses sk-learn as a nickname",
    "max_tokens=4096 is above the limit",
    "key=short",
    "Request id req_0123456789 at 2025-01-01T12:00:00Z",
    "",
  ])("keeps %j unchanged", (text) => {
    expect(redactSecrets(text)).toBe(text);
  });
});

describe("redactSecrets with known secrets", () => {
  it("masks each exact occurrence of a known secret", () => {
    const secret = "my-custom-endpoint-password";
    expect(redactSecrets(`login ${secret} failed; retried with ${secret}`, [secret])).toBe(
      "login [REDACTED] failed; retried with [REDACTED]",
    );
  });

  it("masks a known secret that has no recognisable shape", () => {
    expect(redactSecrets("upstream said: hunter2hunter2 is invalid", ["hunter2hunter2"])).toBe(
      "upstream said: [REDACTED] is invalid",
    );
  });

  it("ignores known secrets shorter than 6 characters", () => {
    expect(redactSecrets("error in abc12 and in the rest", ["abc12", "the", ""])).toBe("error in abc12 and in the rest");
  });

  it("masks the longer of two overlapping known secrets whole", () => {
    expect(redactSecrets("value=prefix-123456-suffix", ["prefix-123456", "prefix-123456-suffix"])).toBe(
      "value=[REDACTED]",
    );
  });

  it("treats regex characters in known secrets literally", () => {
    expect(redactSecrets("pw a+b*c?(d) and aXbbbcd", ["a+b*c?(d)"])).toBe("pw [REDACTED] and aXbbbcd");
  });
});
