/** Deferred work, injected so queue timing (retry delays, drain deadlines) is testable without real waiting. */
export interface Scheduler {
  /** Runs `task` after `ms`; the returned function cancels it. */
  after(ms: number, task: () => void): () => void;
}

export const timerScheduler: Scheduler = {
  after(ms, task) {
    const timer = setTimeout(task, ms);
    return () => clearTimeout(timer);
  },
};

/** Whether `work` settled within `ms`; the deadline is cancelled as soon as it does. */
export function settlesWithin(work: Promise<unknown>, ms: number, scheduler: Scheduler): Promise<boolean> {
  return new Promise((resolve) => {
    const cancel = scheduler.after(ms, () => resolve(false));
    const done = (): void => {
      cancel();
      resolve(true);
    };
    work.then(done, done);
  });
}
