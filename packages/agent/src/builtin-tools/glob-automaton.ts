/** One piece of a parsed glob. */
export type GlobPart =
  | { kind: "literal"; char: string }
  /** `?`: one character other than `/`. */
  | { kind: "one" }
  /** `*`: a run (possibly empty) of characters other than `/`. */
  | { kind: "segment-run" }
  /** `**` not followed by `/`: a run (possibly empty) of characters. */
  | { kind: "any-run" }
  /** `**` followed by `/`: nothing, or any run of characters ending in `/`. */
  | { kind: "folders" }
  | { kind: "choice"; options: GlobPart[][] };

type CharTest = (char: string) => boolean;

interface State {
  /** Consuming a character that passes `accepts` moves to `to`. */
  accepts?: CharTest;
  to?: number;
  /** States reachable without consuming anything. */
  free: number[];
}

const ANY_CHAR: CharTest = () => true;
const NOT_SLASH: CharTest = (char) => char !== "/";
const SLASH: CharTest = (char) => char === "/";

/**
 * A glob compiled to a nondeterministic automaton that is run by tracking every live state at once, so matching
 * costs at most (subject length × glob size) steps. A backtracking regular expression can take exponential or
 * high-polynomial time on globs such as `*a*a*a*a*b`, which would stall the process.
 */
export class GlobAutomaton {
  private readonly states: State[] = [{ free: [] }];
  private readonly start: number;

  constructor(parts: readonly GlobPart[]) {
    this.start = this.build(parts, 0);
  }

  matches(subject: string): boolean {
    let live = this.closure([this.start]);
    for (const char of subject) {
      const next: number[] = [];
      for (const index of live) {
        const state = this.states[index];
        if (state?.accepts !== undefined && state.to !== undefined && state.accepts(char)) next.push(state.to);
      }
      if (next.length === 0) return false;
      live = this.closure(next);
    }
    return live.has(0);
  }

  /** Builds the parts back to front so each piece knows the state that follows it; state 0 accepts. */
  private build(parts: readonly GlobPart[], next: number): number {
    let follow = next;
    for (let index = parts.length - 1; index >= 0; index -= 1) {
      const part = parts[index];
      if (part !== undefined) follow = this.buildPart(part, follow);
    }
    return follow;
  }

  private buildPart(part: GlobPart, next: number): number {
    switch (part.kind) {
      case "literal":
        return this.add({ accepts: (char) => char === part.char, to: next, free: [] });
      case "one":
        return this.add({ accepts: NOT_SLASH, to: next, free: [] });
      case "segment-run":
        return this.addLoop(NOT_SLASH, next);
      case "any-run":
        return this.addLoop(ANY_CHAR, next);
      case "folders": {
        const slash = this.add({ accepts: SLASH, to: next, free: [] });
        const run = this.addLoop(ANY_CHAR, slash);
        return this.add({ free: [next, run] });
      }
      case "choice":
        return this.add({ free: part.options.map((option) => this.build(option, next)) });
    }
  }

  private addLoop(accepts: CharTest, next: number): number {
    const loop = this.add({ accepts, free: [next] });
    const state = this.states[loop];
    if (state !== undefined) state.to = loop;
    return loop;
  }

  private add(state: State): number {
    this.states.push(state);
    return this.states.length - 1;
  }

  private closure(seeds: readonly number[]): Set<number> {
    const reached = new Set<number>();
    const pending = [...seeds];
    for (let index = pending.pop(); index !== undefined; index = pending.pop()) {
      if (reached.has(index)) continue;
      reached.add(index);
      for (const target of this.states[index]?.free ?? []) pending.push(target);
    }
    return reached;
  }
}
