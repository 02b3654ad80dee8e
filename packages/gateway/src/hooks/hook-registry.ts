import path from "node:path";
import type { Logger } from "@hermes/agent";
import { compareNames, discoverHooks, type InvalidHook, type ValidHook } from "./discover-hooks.js";
import { BLOCKABLE_HOOK_EVENT_TYPES, type HookEmitResult, type HookEvent } from "./events.js";
import { HandlerCache } from "./handler-cache.js";
import { isHookEnabled, readHookState, hookStateStamp, type HookStateSnapshot } from "./hook-state.js";
import { asBlockDecision, invokeHookHandler, looksLikeBlockAttempt } from "./invoke-handler.js";
import type { HookHandler } from "./load-hook.js";
import { matchEvents } from "./match-event.js";
import { FolderWatcher } from "./folder-watcher.js";
import { hookWatchTargets } from "./watch-targets.js";

export interface HookRegistryOptions {
  bundledDir?: string;
  operatorDir?: string;
  logger: Logger;
  /** Enable/disable overrides, `$HERMES_HOME/hooks/state.json`. */
  stateFile?: string;
  now?: () => number;
  /** Quiet time after a file change before `watch()` re-discovers (default 200 ms). */
  watchDebounceMs?: number;
}

export interface HookListEntry {
  name: string;
  description: string;
  events: string[];
  enabled: boolean;
  source: "bundled" | "operator";
  /** The hook's folder. */
  path: string;
  /** Why the hook cannot run, when it cannot. */
  problem?: string;
}

interface RegisteredHook {
  hook: ValidHook;
  handler?: HookHandler;
  problem?: string;
}

/** Discovers hooks, keeps their handlers loaded, and dispatches events to them without ever failing the caller. */
export class HookRegistry {
  private hooks: RegisteredHook[] = [];
  private invalid: InvalidHook[] = [];
  private state: HookStateSnapshot = { version: "none", overrides: { disabled: [], enabled: [] } };
  private readonly handlers = new HandlerCache();
  private readonly logger: Logger;
  private readonly now: () => number;
  // Reloads and state refreshes run one at a time, so an emit never sees a half-built hook list.
  private queue: Promise<void> = Promise.resolve();

  private constructor(private readonly options: HookRegistryOptions) {
    this.logger = options.logger;
    this.now = options.now ?? Date.now;
  }

  static async load(options: HookRegistryOptions): Promise<HookRegistry> {
    const registry = new HookRegistry(options);
    await registry.reload();
    return registry;
  }

  /** Re-discovers every hook folder and re-reads the state file; unchanged handler files are not loaded again. */
  reload(): Promise<void> {
    return this.enqueue(async () => {
      const discovered = await discoverHooks(this.options);
      this.handlers.retain(new Set(discovered.hooks.map((hook) => hook.handlerFile)));
      const hooks: RegisteredHook[] = discovered.hooks.map((hook) => ({ hook }));
      const state = this.readState();
      await this.loadEnabledHandlers(hooks, state);
      // Swapped in whole: an emit running meanwhile keeps using the previous, complete list.
      this.hooks = hooks;
      this.invalid = discovered.invalid;
      this.state = state;
    });
  }

  async emit(event: HookEvent): Promise<HookEmitResult> {
    try {
      await this.refreshStateIfChanged();
      return await this.dispatch(event);
    } catch (error) {
      // Dispatch isolates every handler already; reaching this is a bug here, and still must not break a reply.
      this.logger.error("hook dispatch failed", { eventType: event.type, error });
      return { blocked: false };
    }
  }

  list(): HookListEntry[] {
    // Read afresh when changed, so `list` agrees with the file even before the next event; logging waits for that event.
    const state = this.stateUnchanged() ? this.state : readHookState(this.options.stateFile);
    const valid = this.hooks.map(({ hook, problem }): HookListEntry => ({
      name: hook.manifest.name,
      description: hook.manifest.description,
      events: [...hook.manifest.events],
      enabled: isHookEnabled(hook.manifest.name, hook.manifest.enabled, state.overrides),
      source: hook.source,
      path: hook.folder,
      ...(problem === undefined ? {} : { problem }),
    }));
    const invalid = this.invalid.map((hook): HookListEntry => ({
      name: hook.name,
      description: "",
      events: [],
      enabled: false,
      source: hook.source,
      path: hook.folder,
      problem: hook.error,
    }));
    return [...valid, ...invalid].sort((a, b) => compareNames(a.name, b.name) || compareNames(a.source, b.source));
  }

  /** Re-discovers when hook folders, their files or the state file change. Returns a function that stops watching. */
  watch(): () => void {
    const watcher: FolderWatcher = new FolderWatcher({
      logger: this.logger,
      debounceMs: this.options.watchDebounceMs ?? 200,
      onChange: () => {
        // Re-arm before reloading, so a change made while reloading is not missed; again after, for new folders.
        watcher.update(this.watchTargets());
        this.reload().then(
          () => watcher.update(this.watchTargets()),
          (error: unknown) => this.logger.error("hooks reload failed", { error }),
        );
      },
    });
    watcher.update(this.watchTargets());
    return () => watcher.close();
  }

  private async dispatch(event: HookEvent): Promise<HookEmitResult> {
    const blockable = BLOCKABLE_HOOK_EVENT_TYPES.has(event.type);
    for (const { name, handler, timeoutMs } of this.handlersFor(event.type)) {
      const started = this.now();
      const outcome = await invokeHookHandler(handler, event, timeoutMs);
      const durationMs = this.now() - started;
      if (!outcome.ok) {
        const verb = outcome.failure === "timeout" ? "timed out" : "failed";
        // The stack of what the hook threw goes to the log only; the one-line cause is what `hermes hooks` shows.
        const thrown = outcome.thrown instanceof Error ? { error: outcome.thrown } : {};
        this.logger.warn(`hook "${name}" ${verb} on ${event.type}: ${outcome.error}`, { hook: name, eventType: event.type, cause: outcome.error, durationMs, ...thrown });
        continue;
      }
      this.logger.debug("hook ran", { hook: name, eventType: event.type, durationMs });
      if (!blockable) continue;
      const decision = asBlockDecision(outcome.value);
      if (decision) {
        this.logger.info(`hook "${name}" blocked ${event.type}`, { hook: name, eventType: event.type, reason: decision.reason });
        return { blocked: true, reason: decision.reason, hook: name };
      }
      if (looksLikeBlockAttempt(outcome.value)) {
        this.logger.warn(`hook "${name}" returned a block without a reason; ignored`, { hook: name, eventType: event.type });
      }
    }
    return { blocked: false };
  }

  /** Exact subscriptions first, then wildcard ones; by name within each. */
  private handlersFor(eventType: string): Array<{ name: string; handler: HookHandler; timeoutMs: number }> {
    const ranked: Array<{ name: string; handler: HookHandler; timeoutMs: number; rank: number }> = [];
    for (const { hook, handler } of this.hooks) {
      if (!handler || !isHookEnabled(hook.manifest.name, hook.manifest.enabled, this.state.overrides)) continue;
      const match = matchEvents(hook.manifest.events, eventType);
      if (match === "none") continue;
      ranked.push({ name: hook.manifest.name, handler, timeoutMs: hook.manifest.timeoutMs, rank: match === "exact" ? 0 : 1 });
    }
    return ranked.sort((a, b) => a.rank - b.rank || compareNames(a.name, b.name));
  }

  /** True when the state file is provably as it was read: same version, and it had settled by then. */
  private stateUnchanged(): boolean {
    return this.state.settled !== false && hookStateStamp(this.options.stateFile).version === this.state.version;
  }

  private async refreshStateIfChanged(): Promise<void> {
    if (this.stateUnchanged()) return;
    await this.enqueue(async () => {
      const state = this.readState();
      await this.loadEnabledHandlers(this.hooks, state);
      this.state = state;
    });
  }

  private readState(): HookStateSnapshot {
    const state = readHookState(this.options.stateFile);
    if (state.error && state.version !== this.state.version) {
      this.logger.warn("hooks state file ignored", { file: this.options.stateFile, cause: state.error });
    }
    return state;
  }

  /** Disabled hooks stay unloaded: an operator may disable a hook precisely because its module misbehaves. */
  private async loadEnabledHandlers(hooks: RegisteredHook[], state: HookStateSnapshot): Promise<void> {
    for (const entry of hooks) {
      const { manifest, handlerFile } = entry.hook;
      if (!isHookEnabled(manifest.name, manifest.enabled, state.overrides)) continue;
      const load = await this.handlers.get(handlerFile);
      if (load.ok) {
        entry.handler = load.handler;
        entry.problem = undefined;
      } else {
        entry.handler = undefined;
        if (entry.problem !== load.error) {
          this.logger.warn(`hook "${manifest.name}" skipped: ${load.error}`, { hook: manifest.name, folder: entry.hook.folder, reason: load.error });
        }
        entry.problem = load.error;
      }
    }
  }

  private watchTargets(): ReturnType<typeof hookWatchTargets> {
    const roots = [this.options.bundledDir, this.options.operatorDir].filter((dir): dir is string => dir !== undefined);
    const hookFolders = [...this.hooks.map((entry) => entry.hook.folder), ...this.invalid.map((hook) => hook.folder)];
    return hookWatchTargets({ roots: roots.map((dir) => path.resolve(dir)), hookFolders, stateFile: this.options.stateFile });
  }

  private enqueue(task: () => Promise<void>): Promise<void> {
    const run = this.queue.then(task);
    this.queue = run.catch(() => undefined);
    return run;
  }
}
