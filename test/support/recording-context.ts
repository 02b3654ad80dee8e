import type { AdapterContext, AdapterState, AdapterStatus, HttpHandler, InboundMessage } from "@hermes/gateway";

/** An adapter context for platform tests, keeping what the adapter hands to the gateway. */
export interface RecordingContext extends AdapterContext {
  /** Messages the default `receive` kept (empty when the test passed its own). */
  received: InboundMessage[];
  /** Routes the adapter registered, keyed `METHOD /path`. */
  routes: Map<string, HttpHandler>;
  statuses: AdapterStatus[];
  /** Resolves once `state` has been reported `times` times in all (default once). */
  reported(state: AdapterState, times?: number): Promise<void>;
}

export interface RecordingContextOptions {
  /** Offer `route` to the adapter, as a gateway with its HTTP server does (default true). */
  withRoutes?: boolean;
  /** Replaces keeping the message in `received`, for tests that make the gateway slow or failing. */
  receive?: AdapterContext["receive"];
}

/** A context that records every status report, message and route, and lets a test wait for a reported state. */
export function recordingContext(options: RecordingContextOptions = {}): RecordingContext {
  const received: InboundMessage[] = [];
  const routes = new Map<string, HttpHandler>();
  const statuses: AdapterStatus[] = [];
  const waiters: Array<{ state: AdapterState; times: number; resolve: () => void }> = [];
  const count = (state: AdapterState): number => statuses.filter((status) => status.state === state).length;
  const context: RecordingContext = {
    received,
    routes,
    statuses,
    receive: options.receive ?? (async (message) => void received.push(message)),
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

/** The states in order, each run of repeats (one report per failed attempt, each with a new `retryAt`) shown once. */
export function stateRuns(statuses: readonly AdapterStatus[]): AdapterState[] {
  return statuses.map((status) => status.state).filter((state, i, all) => i === 0 || all[i - 1] !== state);
}
