/** Where in a run a worker can be killed. */
export const KILL_POINTS = ["before-model", "mid-stream", "mid-tool", "after-completion"] as const;
export type KillPoint = (typeof KILL_POINTS)[number];

/**
 * Seeded kill points for a crash test run in rounds: at most one kill per round, each at the next point of the list
 * after a seeded number of chances to kill there are let pass, and only while the caller says a kill is allowed
 * (e.g. both workers up), so there is always one worker left running.
 */
export class KillSchedule {
  private next = 0;
  private skipsLeft: number;
  private killedThisRound = false;

  constructor(
    private readonly points: readonly KillPoint[],
    private readonly random: () => number,
    private readonly maxSkips = 4,
  ) {
    this.skipsLeft = this.drawSkips();
  }

  startRound(): void {
    this.killedThisRound = false;
  }

  /** Called at each chance to kill at `point`; true means kill now. */
  shouldKill(point: KillPoint, allowed: boolean): boolean {
    if (this.killedThisRound || !allowed || this.points[this.next] !== point) return false;
    if (this.skipsLeft > 0) {
      this.skipsLeft -= 1;
      return false;
    }
    this.killedThisRound = true;
    this.next += 1;
    this.skipsLeft = this.drawSkips();
    return true;
  }

  private drawSkips(): number {
    return Math.floor(this.random() * (this.maxSkips + 1));
  }
}
