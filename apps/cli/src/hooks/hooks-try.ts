import { inspect } from "node:util";
import {
  asBlockDecision,
  BLOCKABLE_HOOK_EVENT_TYPES,
  discoverHooks,
  invokeHookHandler,
  isHookEventType,
  isWildcardPattern,
  loadHookHandler,
  matchEvents,
  sampleHookEvent,
  type HookEventType,
} from "@hermes/gateway";
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE, hookPaths, type HooksCommandIo } from "./hooks-io.js";

/**
 * `hermes hooks test <name> [event-type]`: loads one hook and hands it a sample event, exactly as the gateway would
 * (same loader, same timeout), whether or not the hook is enabled.
 */
export async function tryHook(io: HooksCommandIo, name: string, eventArg: string | undefined): Promise<number> {
  if (eventArg !== undefined && !isHookEventType(eventArg)) {
    io.stderr.write(`Unknown event type "${eventArg}". Use a lifecycle event such as message:received, or command:<name>.\n`);
    return EXIT_USAGE;
  }
  const found = await discoverHooks({ ...hookPaths(io), logger: io.logger });
  const hook = found.hooks.find((candidate) => candidate.manifest.name === name);
  if (!hook) {
    const broken = found.invalid.find((candidate) => candidate.name === name);
    io.stderr.write(broken ? `Hook "${name}" is not valid: ${broken.error}\n` : `Unknown hook "${name}".\n`);
    return EXIT_FAILED;
  }
  const eventType = eventArg ?? defaultEventType(hook.manifest.events);
  if (matchEvents(hook.manifest.events, eventType) === "none") {
    io.stderr.write(`note: "${name}" does not subscribe to ${eventType}; sending it anyway.\n`);
  }
  const handler = await loadHookHandler(hook.handlerFile);
  if (!handler.ok) {
    io.stderr.write(`Hook "${name}" cannot be loaded: ${handler.error}\n`);
    return EXIT_FAILED;
  }

  const now = io.now ?? Date.now;
  const event = sampleHookEvent(eventType, now());
  io.stdout.write(`Sending ${eventType} to "${name}" (${hook.folder}):\n${JSON.stringify(event, null, 2)}\n`);
  const started = now();
  const outcome = await withHermesHome(io.home, () => invokeHookHandler(handler.handler, event, hook.manifest.timeoutMs));
  const took = `took ${Math.max(0, Math.round(now() - started))} ms`;
  if (!outcome.ok) {
    const what = outcome.failure === "timeout" ? "timed out" : "threw";
    io.stderr.write(`Handler ${what}: ${outcome.error} (${took})\n`);
    return EXIT_FAILED;
  }
  io.stdout.write(`Result: ${describeResult(outcome.value)} (${took})\n`);
  const block = asBlockDecision(outcome.value);
  if (block && BLOCKABLE_HOOK_EVENT_TYPES.has(eventType)) io.stdout.write(`The gateway would block this event: ${block.reason}\n`);
  else if (block) io.stdout.write(`Blocking is ignored for ${eventType}; only message:received and tool:before can be blocked.\n`);
  return EXIT_OK;
}

/**
 * Hooks find the state folder through $HERMES_HOME, as they do inside the gateway; the CLI may have resolved it
 * from .env or the default instead, so the handler is shown the folder this command works on.
 */
async function withHermesHome<T>(home: string, run: () => Promise<T>): Promise<T> {
  const previous = process.env.HERMES_HOME;
  process.env.HERMES_HOME = home;
  try {
    return await run();
  } finally {
    if (previous === undefined) delete process.env.HERMES_HOME;
    else process.env.HERMES_HOME = previous;
  }
}

function defaultEventType(events: readonly string[]): HookEventType {
  const exact = events.find((pattern) => !isWildcardPattern(pattern) && isHookEventType(pattern));
  return exact !== undefined && isHookEventType(exact) ? exact : "gateway:startup";
}

function describeResult(value: unknown): string {
  if (value === undefined) return "undefined";
  try {
    const json = JSON.stringify(value);
    if (json !== undefined) return json;
  } catch {
    // Circular or BigInt: fall through to a readable dump.
  }
  return inspect(value, { depth: 4, breakLength: Infinity });
}
