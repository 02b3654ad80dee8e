import { watch, type FSWatcher } from "node:fs";
import type { Logger } from "@hermes/agent";
import type { WatchTarget } from "./watch-targets.js";

export interface FolderWatcherOptions {
  logger: Logger;
  /** Quiet time before reacting, so copying a hook folder file by file causes one reload, not ten. */
  debounceMs: number;
  onChange: () => void;
}

/** Non-recursive fs.watch on a set of folders that can be swapped as hooks come and go. */
export class FolderWatcher {
  private readonly watchers = new Map<string, FSWatcher>();
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(private readonly options: FolderWatcherOptions) {}

  /** Watches exactly these targets from now on. */
  update(targets: readonly WatchTarget[]): void {
    if (this.closed) return;
    for (const watcher of this.watchers.values()) watcher.close();
    this.watchers.clear();
    for (const target of targets) this.start(target);
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    for (const watcher of this.watchers.values()) watcher.close();
    this.watchers.clear();
  }

  private start(target: WatchTarget): void {
    let watcher: FSWatcher;
    try {
      // Not persistent: watching for hook edits must never be what keeps a process alive.
      watcher = watch(target.dir, { persistent: false }, (_event, entry) => {
        if (target.accepts(entry === null ? null : String(entry))) this.schedule();
      });
    } catch (error) {
      this.options.logger.warn("cannot watch hooks folder; edits there need `hermes hooks` or a restart", {
        folder: target.dir,
        error: error instanceof Error ? error.message : String(error),
      });
      return;
    }
    // A watched folder that is deleted errors out; the next change elsewhere re-arms the watch list.
    watcher.on("error", () => {
      watcher.close();
      this.watchers.delete(target.dir);
      this.schedule();
    });
    this.watchers.set(target.dir, watcher);
  }

  private schedule(): void {
    if (this.closed) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      if (!this.closed) this.options.onChange();
    }, this.options.debounceMs);
    this.timer.unref();
  }
}
