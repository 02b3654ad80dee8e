import { redactSecrets } from "@hermes/agent";

/**
 * The last pass over every piece of text written to a log (JSON or pretty, file or stderr): configured secret values
 * and well-known token shapes become `[REDACTED]`.
 */
export function createSecretMask(secrets: readonly string[]): (text: string) => string {
  // Inside a JSON line a secret with quotes, backslashes or control characters appears escaped; mask that form too.
  const escaped = secrets.map((secret) => JSON.stringify(secret).slice(1, -1)).filter((form, index) => form !== secrets[index]);
  const forms = [...secrets, ...escaped];
  return (text) => redactSecrets(text, forms);
}
