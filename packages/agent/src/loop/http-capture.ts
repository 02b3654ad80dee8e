import { AsyncLocalStorage } from "node:async_hooks";

/** Status and headers of the last HTTP response a provider SDK received inside a capture scope. */
export interface CapturedResponse {
  status: number;
  headers: Record<string, string>;
}

interface Scope {
  last?: CapturedResponse;
}

const storage = new AsyncLocalStorage<Scope>();
let installed = false;

/**
 * pi-ai reports a failed request only as text ("429 …"), dropping headers such as Retry-After. Provider SDKs call the
 * global fetch, so a pass-through wrapper records the response of calls made inside `withResponseCapture`; outside a
 * scope it does nothing at all.
 */
function install(): void {
  if (installed) return;
  installed = true;
  const original = globalThis.fetch;
  const wrapped: typeof fetch = async (input, init) => {
    const response = await original(input, init);
    const scope = storage.getStore();
    if (scope) {
      const headers: Record<string, string> = {};
      response.headers.forEach((value, key) => {
        headers[key.toLowerCase()] = value;
      });
      scope.last = { status: response.status, headers };
    }
    return response;
  };
  globalThis.fetch = wrapped;
}

export async function withResponseCapture<T>(fn: () => Promise<T>): Promise<{ value: T; response?: CapturedResponse }> {
  install();
  const scope: Scope = {};
  const value = await storage.run(scope, fn);
  return { value, response: scope.last };
}
