import { describe, it, expect } from "vitest";
import { classifyProviderError, type ErrorRecoveryHint, type ProviderErrorClass } from "./classify.js";

type Case = readonly [source: string, message: string, expected: ProviderErrorClass];

const PROVIDER_MESSAGES: readonly Case[] = [
  // OpenAI
  ["OpenAI", "401 Incorrect API key provided: sk-abc***xyz. You can find your API key at https://platform.openai.com/account/api-keys.", "auth"],
  ["OpenAI", "429 Rate limit reached for gpt-4o in organization org-abc on tokens per min (TPM): Limit 30000, Used 29500, Requested 1200. Please try again in 1.4s.", "rate_limit"],
  ["OpenAI", "429 You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs.", "billing"],
  ["OpenAI", "400 This model's maximum context length is 8192 tokens. However, your messages resulted in 9013 tokens. Please reduce the length of the messages.", "context_overflow"],
  ["OpenAI", "400 Your input exceeds the context window of this model. Please adjust your input and try again.", "context_overflow"],
  ["OpenAI", "400 Invalid 'messages[2].tool_calls[0].id': string too long. Expected a string with maximum length 40.", "format_error"],
  ["OpenAI", "404 The model `gpt-9-turbo` does not exist or you do not have access to it.", "model_not_found"],
  ["OpenAI", "500 The server had an error while processing your request. Sorry about that!", "server_error"],
  ["OpenAI", "503 The engine is currently overloaded, please try again later", "overloaded"],
  ["OpenAI", "413 Request Entity Too Large", "payload_too_large"],
  ["OpenAI", "Connection error.", "timeout"],
  ["OpenAI", "Request timed out.", "timeout"],
  // Anthropic
  ["Anthropic", '401 {"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}', "auth"],
  ["Anthropic", '529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}', "overloaded"],
  ["Anthropic", '400 {"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 213462 tokens > 200000 maximum"}}', "context_overflow"],
  ["Anthropic", '400 {"type":"error","error":{"type":"invalid_request_error","message":"messages.1.content.0: Invalid `signature` in `thinking` block"}}', "format_error"],
  ["Anthropic", '400 {"type":"error","error":{"type":"invalid_request_error","message":"Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits."}}', "billing"],
  ["Anthropic", '429 {"type":"error","error":{"type":"rate_limit_error","message":"This request would exceed the rate limit for your organization of 50,000 input tokens per minute."}}', "rate_limit"],
  ["Anthropic", '413 {"type":"error","error":{"type":"request_too_large","message":"Request exceeds the maximum size"}}', "payload_too_large"],
  ["Anthropic", '404 {"type":"error","error":{"type":"not_found_error","message":"model: claude-opus-0-0"}}', "model_not_found"],
  ["Anthropic", '500 {"type":"error","error":{"type":"api_error","message":"Internal server error"}}', "server_error"],
  ["Anthropic", "Overloaded", "overloaded"],
  // Google
  ["Google", '400 {"error":{"code":400,"message":"API key not valid. Please pass a valid API key.","status":"INVALID_ARGUMENT"}}', "auth"],
  ["Google", '429 {"error":{"code":429,"message":"You exceeded your current quota, please check your plan and billing details. Please retry in 44.386797195s.","status":"RESOURCE_EXHAUSTED"}}', "rate_limit"],
  ["Google", "400 The input token count (1196265) exceeds the maximum number of tokens allowed (1048575).", "context_overflow"],
  ["Google", '503 {"error":{"code":503,"message":"The model is overloaded. Please try again later.","status":"UNAVAILABLE"}}', "overloaded"],
  ["Google", "404 models/gemini-0.5-pro is not found for API version v1beta, or is not supported for generateContent.", "model_not_found"],
  ["Google", "Resource has been exhausted (e.g. check quota). RESOURCE_EXHAUSTED", "rate_limit"],
  ["Google", "504 Deadline Exceeded", "timeout"],
  // OpenRouter
  ["OpenRouter", "401 No auth credentials found", "auth"],
  ["OpenRouter", "402 This request requires more credits, or fewer max_tokens. You requested up to 4096 tokens, but can only afford 1200.", "billing"],
  ["OpenRouter", "429 Rate limit exceeded: free-models-per-day. Add 10 credits to unlock 1000 free model requests per day", "rate_limit"],
  ["OpenRouter", "404 No endpoints found for meta-llama/llama-9-70b.", "model_not_found"],
  ["OpenRouter", "400 This endpoint's maximum context length is 131072 tokens. However, you requested about 140000 tokens.", "context_overflow"],
  ["OpenRouter", "502 Provider returned error", "server_error"],
  // Ollama and llama.cpp
  ["Ollama", 'model "llama3.3:70b" not found, try pulling it first', "model_not_found"],
  ["Ollama", '404 model "qwen3:8b" not found, try pulling it first', "model_not_found"],
  ["Ollama", "prompt too long; exceeded max context length by 1234 tokens", "context_overflow"],
  ["Ollama", "connect ECONNREFUSED 127.0.0.1:11434", "timeout"],
  ["llama.cpp", "500 the request exceeds the available context size, try increasing it", "context_overflow"],
  ["llama.cpp", "400 the request exceeds the available context size, try increasing it", "context_overflow"],
  ["llama.cpp", "503 Loading model", "overloaded"],
  // Others and transport
  ["Bedrock", "ThrottlingException: Too many tokens, please wait before trying again.", "rate_limit"],
  ["Mistral", "Prompt contains 40000 tokens and 0 draft tokens, too large for model with 32768 maximum context length", "context_overflow"],
  ["Cerebras", "400 status code (no body)", "context_overflow"],
  ["undici", "fetch failed", "timeout"],
  ["undici", "terminated", "timeout"],
  ["node", "read ECONNRESET", "timeout"],
  ["node", "socket hang up", "timeout"],
  ["node", "connect ETIMEDOUT 10.0.0.1:443", "timeout"],
  ["unknown", "Something odd happened", "unknown"],
  ["unknown", "418 I'm a teapot", "unknown"],
];

describe("classifyProviderError on real provider wording", () => {
  it.each(PROVIDER_MESSAGES)("%s: %s → %s", (_source, message, expected) => {
    expect(classifyProviderError({ message }).errorClass).toBe(expected);
  });

  it("reads the status from the leading number of the message", () => {
    expect(classifyProviderError({ message: "500 Internal server error" }).status).toBe(500);
    expect(classifyProviderError({ message: "Connection error." }).status).toBeUndefined();
  });

  it("prefers an explicit status over the message", () => {
    const classified = classifyProviderError({ message: "Incorrect API key provided", status: 401 });
    expect(classified).toMatchObject({ errorClass: "auth", status: 401 });
    expect(classifyProviderError({ message: "500 upstream said so", status: 429 }).errorClass).toBe("rate_limit");
  });
});

describe("classifyProviderError on structured codes and wording without a status", () => {
  it.each([
    ['{"error":{"code":"insufficient_quota","message":"quota"}}', "billing"],
    ['{"error":{"code":"context_length_exceeded"}}', "context_overflow"],
    ['{"error":{"code":"model_not_found"}}', "model_not_found"],
    ['{"error":{"code":"invalid_api_key"}}', "auth"],
    ["Rate limit exceeded", "rate_limit"],
    ["You have insufficient credits for this request", "billing"],
    ["Unauthorized", "auth"],
    ["The model `foo-1` does not exist", "model_not_found"],
  ] as const)("%s → %s", (message, expected) => {
    expect(classifyProviderError({ message }).errorClass).toBe(expected);
  });
});

describe("402 disambiguation", () => {
  it.each([
    ["402 Insufficient credits. Add more using the credits page", "billing"],
    ["402 Payment Required", "billing"],
    ["402 Usage limit reached for this billing period; resets at 2025-01-01T00:00:00Z", "rate_limit"],
    ["402 Daily spend cap hit, please try again tomorrow", "rate_limit"],
    ["402 Key temporarily suspended for exceeding the burst budget", "rate_limit"],
    ["402 Budget exhausted, retry once the window rolls over", "rate_limit"],
  ] as const)("%s → %s", (message, expected) => {
    expect(classifyProviderError({ message }).errorClass).toBe(expected);
  });

  it("applies to an explicit 402 status as well", () => {
    expect(classifyProviderError({ message: "Insufficient balance", status: 402 }).errorClass).toBe("billing");
    expect(classifyProviderError({ message: "Limit resets at 10:00 UTC", status: 402 }).errorClass).toBe("rate_limit");
  });
});

describe("auth escalation", () => {
  const cases = [
    { message: "401 Incorrect API key provided: sk-abc***xyz." },
    { message: "Permission denied for this project", status: 403 },
    { message: '400 {"error":{"code":400,"message":"API key not valid. Please pass a valid API key."}}' },
    { message: '{"error":{"code":"invalid_api_key"}}' },
  ];

  it.each(cases)("stays auth on the first failure: $message", (failure) => {
    expect(classifyProviderError({ ...failure, previousAuthFailures: 0 }).errorClass).toBe("auth");
    expect(classifyProviderError(failure).errorClass).toBe("auth");
  });

  it.each(cases)("becomes auth_permanent once the credential already failed: $message", (failure) => {
    const classified = classifyProviderError({ ...failure, previousAuthFailures: 1 });
    expect(classified.errorClass).toBe("auth_permanent");
    expect(classified.hint).toEqual({ retryable: false, shouldCompress: false, shouldFallback: false, shouldRotateCredential: false });
    expect(classified.userMessage).toMatch(/keeps rejecting/);
  });

  it("does not escalate other classes", () => {
    expect(classifyProviderError({ message: "429 Rate limit reached", previousAuthFailures: 3 }).errorClass).toBe("rate_limit");
  });
});

describe("recovery hints", () => {
  const flags = (retryable: boolean, shouldCompress: boolean, shouldFallback: boolean, shouldRotateCredential: boolean): ErrorRecoveryHint => ({
    retryable,
    shouldCompress,
    shouldFallback,
    shouldRotateCredential,
  });

  it.each([
    ["401 Invalid API key", "auth", flags(false, false, true, true)],
    ["402 Payment Required", "billing", flags(false, false, true, true)],
    ["429 Too Many Requests", "rate_limit", flags(true, false, true, true)],
    ["529 Overloaded", "overloaded", flags(true, false, true, false)],
    ["500 Internal server error", "server_error", flags(true, false, true, false)],
    ["Request timed out.", "timeout", flags(true, false, true, false)],
    ["400 prompt is too long: 300000 tokens > 200000 maximum", "context_overflow", flags(false, true, false, false)],
    ["413 Request Entity Too Large", "payload_too_large", flags(false, true, false, false)],
    ["404 Not Found", "model_not_found", flags(false, false, true, false)],
    ["400 Invalid value for 'tool_choice'", "format_error", flags(false, false, false, false)],
    ["Something odd happened", "unknown", flags(true, false, false, false)],
  ] as const)("%s → %s", (message, errorClass, hint) => {
    const classified = classifyProviderError({ message });
    expect(classified.errorClass).toBe(errorClass);
    expect(classified.hint).toEqual(hint);
  });

  it("hands out a fresh hint object each time", () => {
    const first = classifyProviderError({ message: "500 Internal server error" });
    first.hint.retryable = false;
    expect(classifyProviderError({ message: "500 Internal server error" }).hint.retryable).toBe(true);
  });
});

describe("retry timing in the classification", () => {
  it("takes the delay from the message", () => {
    const classified = classifyProviderError({ message: "429 Rate limit reached for requests. Please try again in 20s." });
    expect(classified.retryAfterMs).toBe(20_000);
    expect(classified.userMessage).toBe(
      "The AI provider is limiting how many requests I can send right now (HTTP 429). Please try again in about 20 seconds.",
    );
  });

  it("takes the delay from headers, an HTTP date measured from the injected clock included", () => {
    expect(classifyProviderError({ message: "429 Too Many Requests", headers: { "Retry-After": "7" } }).retryAfterMs).toBe(7000);
    const now = Date.parse("Tue, 01 Apr 2025 10:00:00 GMT");
    const failure = { message: "503 Service Unavailable", headers: { "retry-after": "Tue, 01 Apr 2025 10:02:00 GMT" }, now };
    const classified = classifyProviderError(failure);
    expect(classified).toMatchObject({ errorClass: "overloaded", retryAfterMs: 120_000 });
  });

  it("omits the delay when the provider named none", () => {
    const classified = classifyProviderError({ message: "429 Too Many Requests" });
    expect(classified.retryAfterMs).toBeUndefined();
    expect(classified.userMessage).toMatch(/try again in a little while/);
  });
});

describe("user messages", () => {
  it("explains an auth failure plainly", () => {
    expect(classifyProviderError({ message: "401 Incorrect API key provided: sk-abc***xyz." }).userMessage).toBe(
      "The AI provider rejected the configured API key (HTTP 401), so I can't answer right now. The bot's operator needs to check the model credentials.",
    );
  });

  it("gives every class its own short message that never quotes the provider", () => {
    const samples = [
      "401 Invalid API key",
      "402 Payment Required",
      "429 Too Many Requests",
      "529 Overloaded",
      "500 Internal server error",
      "Request timed out.",
      "504 Gateway Timeout",
      "400 prompt is too long: 300000 tokens > 200000 maximum",
      "413 Request Entity Too Large",
      "404 Not Found",
      "400 Invalid value for 'tool_choice'",
      "Something odd happened",
    ];
    const messages = new Set<string>();
    for (const message of samples) {
      const { userMessage } = classifyProviderError({ message });
      messages.add(userMessage);
      const sentences = userMessage.split(/(?<=[.!?])\s+/).filter(Boolean);
      expect(sentences.length).toBeGreaterThanOrEqual(1);
      expect(sentences.length).toBeLessThanOrEqual(2);
      expect(userMessage).not.toContain(message);
    }
    const permanent = classifyProviderError({ message: "401 Invalid API key", previousAuthFailures: 2 }).userMessage;
    messages.add(permanent);
    expect(messages.size).toBe(samples.length + 1);
  });

  it("mentions the connection for a transport failure and the HTTP status when there is one", () => {
    expect(classifyProviderError({ message: "fetch failed" }).userMessage).toMatch(/connection failed or timed out/);
    expect(classifyProviderError({ message: "504 Gateway Timeout" }).userMessage).toMatch(/\(HTTP 504\)/);
  });
});

describe("no secret survives classification", () => {
  const openAiKey = ["sk-", "proj-", "Qw3rTy9UiOp0AsDfGhJkLz1XcVbNm2"].join("");
  const slackToken = ["xoxb-", "123456789012-", "1234567890123-", "AbCdEfGhIjKlMnOpQrStUvWx"].join("");
  const telegramToken = ["7123456789", ":", "AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsawQ"].join("");
  const customSecret = "operator-private-passphrase";

  it.each([
    { message: `401 Incorrect API key provided: ${openAiKey}.`, secret: openAiKey },
    { message: `Connection error. POST https://api.telegram.org/bot${telegramToken}/getUpdates`, secret: telegramToken },
    { message: `500 upstream rejected Authorization: Bearer ${slackToken}`, secret: slackToken },
    { message: `429 Rate limit for key ${customSecret}. Please try again in 3s.`, secret: customSecret, knownSecrets: [customSecret] },
    { message: `403 ${customSecret} is not allowed`, secret: customSecret, knownSecrets: [customSecret], previousAuthFailures: 1 },
  ])("masks $secret in every text field", (failure) => {
    const classified = classifyProviderError(failure);
    expect(JSON.stringify(classified)).not.toContain(failure.secret);
    expect(classified.message).toContain("[REDACTED]");
  });
});
