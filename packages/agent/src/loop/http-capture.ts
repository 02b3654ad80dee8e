import { AsyncLocalStorage } from "node:async_hooks";
import diagnostics from "node:diagnostics_channel";

/** Status and headers of the last HTTP response a provider SDK received inside a capture scope. */
export interface CapturedResponse {
  status: number;
  headers: Record<string, string>;
}

interface Scope {
  last?: CapturedResponse;
}

/** The parts of undici's `undici:request:*` channel messages read here (Node's fetch publishes them). */
interface UndiciRequestMessage {
  request: object;
}
interface UndiciHeadersMessage extends UndiciRequestMessage {
  response: { statusCode: number; headers: ReadonlyArray<Buffer | string> };
}

const storage = new AsyncLocalStorage<Scope>();
const scopeOfRequest = new WeakMap<object, Scope>();
let subscribed = false;

/**
 * pi-ai reports a failed request only as text ("429 …"), dropping headers such as Retry-After, and its `onResponse`
 * hook fires only for successful responses. Node's fetch announces every request and its response headers on
 * diagnostics channels, so this only listens: a request created inside `withResponseCapture` (the provider SDK calls
 * fetch within our async context) is remembered, and its response's status and headers are recorded for that scope.
 * Nothing is replaced, and requests made elsewhere in the process are never looked at.
 */
function subscribe(): void {
  if (subscribed) return;
  subscribed = true;
  diagnostics.subscribe("undici:request:create", (message) => {
    const scope = storage.getStore();
    if (scope) scopeOfRequest.set((message as UndiciRequestMessage).request, scope);
  });
  diagnostics.subscribe("undici:request:headers", (message) => {
    const { request, response } = message as UndiciHeadersMessage;
    const scope = scopeOfRequest.get(request);
    if (scope) scope.last = { status: response.statusCode, headers: headerRecord(response.headers) };
  });
}

/** undici gives raw headers as a flat [name, value, name, value, …] list. */
function headerRecord(raw: ReadonlyArray<Buffer | string>): Record<string, string> {
  const headers: Record<string, string> = {};
  for (let i = 0; i + 1 < raw.length; i += 2) {
    headers[String(raw[i]).toLowerCase()] = String(raw[i + 1]);
  }
  return headers;
}

export async function withResponseCapture<T>(fn: () => Promise<T>): Promise<{ value: T; response?: CapturedResponse }> {
  subscribe();
  const scope: Scope = {};
  const value = await storage.run(scope, fn);
  return { value, response: scope.last };
}
