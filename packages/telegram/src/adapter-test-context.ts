import type { AdapterContext, AdapterState, AdapterStatus, HttpHandler, InboundMessage } from "@hermes/gateway";

export interface RecordingContext extends AdapterContext {
  received: InboundMessage[];
  routes: Map<string, HttpHandler>;
  statuses: AdapterStatus[];
  /** Resolves once `state` has been reported `times` times in all (default once). */
  reported(state: AdapterState, times?: number): Promise<void>;
}

/** An adapter context for tests: keeps the messages, routes and status reports the adapter hands to the gateway. */
export function recordingContext(options: { withRoutes?: boolean } = {}): RecordingContext {
  const received: InboundMessage[] = [];
  const routes = new Map<string, HttpHandler>();
  const statuses: AdapterStatus[] = [];
  const waiters: Array<{ state: AdapterState; times: number; resolve: () => void }> = [];
  const count = (state: AdapterState): number => statuses.filter((status) => status.state === state).length;
  const context: RecordingContext = {
    received,
    routes,
    statuses,
    receive: async (message) => void received.push(message),
    reportStatus: (status) => {
      statuses.push(status);
      for (const waiter of [...waiters]) {
        if (count(waiter.state) < waiter.times) continue;
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    },
    reported: (state, times = 1) => (count(state) >= times ? Promise.resolve() : new Promise((resolve) => waiters.push({ state, times, resolve }))),
  };
  if (options.withRoutes !== false) context.route = (method, routePath, handler) => void routes.set(`${method} ${routePath}`, handler);
  return context;
}

/** A `sleep` for the adapter that waits until the test calls `wake` (or the adapter stops), recording each pause. */
export function gatedSleep(): { sleep: (ms: number, signal: AbortSignal) => Promise<void>; wake: () => void; pauses: number[] } {
  const pauses: number[] = [];
  const sleeping: Array<() => void> = [];
  return {
    pauses,
    sleep: (ms, signal) =>
      new Promise<void>((resolve) => {
        pauses.push(ms);
        sleeping.push(resolve);
        signal.addEventListener("abort", () => resolve(), { once: true });
      }),
    wake: () => {
      for (const resolve of sleeping.splice(0)) resolve();
    },
  };
}
