import { GlobAutomaton, type GlobPart } from "./glob-automaton.js";

/** A compiled glob, or why it could not be compiled. */
export type GlobMatcher = { ok: true; matches: (relativePath: string) => boolean } | { ok: false; error: string };

/**
 * Compiles a glob with `*` (within one path segment), `**` (any number of segments), `?` (one character)
 * and `{a,b}` (alternatives, nestable). A glob without `/` is matched against the file name alone, so
 * `*.ts` finds TypeScript files at any depth; otherwise it is matched against the whole relative path.
 * Matching takes time linear in the path length whatever the glob, so a model-written glob cannot stall the process.
 */
export function compileGlob(glob: string): GlobMatcher {
  const parsed = parseParts(glob, 0, false);
  if (!parsed.ok) return parsed;
  const automaton = new GlobAutomaton(parsed.parts);
  const nameOnly = !glob.includes("/");
  return {
    ok: true,
    matches: (relativePath: string) => {
      const normalised = relativePath.split("\\").join("/");
      const subject = nameOnly ? normalised.slice(normalised.lastIndexOf("/") + 1) : normalised;
      return automaton.matches(subject);
    },
  };
}

type Parsed = { ok: true; parts: GlobPart[]; end: number } | { ok: false; error: string };

function parseParts(glob: string, start: number, insideBraces: boolean): Parsed {
  const parts: GlobPart[] = [];
  let index = start;
  while (index < glob.length) {
    const char = glob.charAt(index);
    if (insideBraces && (char === "," || char === "}")) return { ok: true, parts, end: index };
    if (char === "*") {
      let stars = 1;
      while (glob.charAt(index + stars) === "*") stars += 1;
      if (stars === 1) {
        addRun(parts, { kind: "segment-run" });
      } else if (glob.charAt(index + stars) === "/") {
        // `**/` may also match no folder at all: `src/**/a.ts` matches `src/a.ts`.
        parts.push({ kind: "folders" });
        stars += 1;
      } else {
        addRun(parts, { kind: "any-run" });
      }
      index += stars;
      continue;
    }
    if (char === "?") {
      parts.push({ kind: "one" });
      index += 1;
      continue;
    }
    if (char === "{") {
      const choice = parseChoice(glob, index + 1);
      if (!choice.ok) return choice;
      parts.push(...choice.parts);
      index = choice.end;
      continue;
    }
    // Whole code points, so `?` and literals line up with how the automaton reads the path.
    const codePoint = String.fromCodePoint(glob.codePointAt(index) ?? 0);
    parts.push({ kind: "literal", char: codePoint });
    index += codePoint.length;
  }
  if (insideBraces) return { ok: false, error: `Glob ${JSON.stringify(glob)} has an unclosed "{".` };
  return { ok: true, parts, end: index };
}

/** Adjacent runs such as `*` after `**` say nothing more than the wider one; keeping one keeps the automaton small. */
function addRun(parts: GlobPart[], run: GlobPart & { kind: "segment-run" | "any-run" }): void {
  const previous = parts[parts.length - 1];
  if (previous?.kind === "any-run") return;
  if (previous?.kind === "segment-run") {
    parts[parts.length - 1] = run;
    return;
  }
  parts.push(run);
}

function parseChoice(glob: string, start: number): Parsed {
  const options: GlobPart[][] = [];
  let index = start;
  for (;;) {
    const option = parseParts(glob, index, true);
    if (!option.ok) return option;
    options.push(option.parts);
    index = option.end + 1;
    if (glob.charAt(option.end) === "}") return { ok: true, parts: [{ kind: "choice", options }], end: index };
  }
}
