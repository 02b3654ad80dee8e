/** A compiled glob, or why it could not be compiled. */
export type GlobMatcher = { ok: true; matches: (relativePath: string) => boolean } | { ok: false; error: string };

/**
 * Compiles a glob with `*` (within one path segment), `**` (any number of segments), `?` (one character)
 * and `{a,b}` (alternatives, nestable). A glob without `/` is matched against the file name alone, so
 * `*.ts` finds TypeScript files at any depth; otherwise it is matched against the whole relative path.
 */
export function compileGlob(glob: string): GlobMatcher {
  const parsed = translate(glob, 0, false);
  if (!parsed.ok) return parsed;
  const regex = new RegExp(`^${parsed.source}$`);
  const nameOnly = !glob.includes("/");
  return {
    ok: true,
    matches: (relativePath: string) => {
      const normalised = relativePath.split("\\").join("/");
      const subject = nameOnly ? normalised.slice(normalised.lastIndexOf("/") + 1) : normalised;
      return regex.test(subject);
    },
  };
}

type Translation = { ok: true; source: string; end: number } | { ok: false; error: string };

const REGEX_SPECIALS = new Set([..."\\^$.|+()[]{}*?/"]);

function translate(glob: string, start: number, insideBraces: boolean): Translation {
  let source = "";
  let index = start;
  while (index < glob.length) {
    const char = glob.charAt(index);
    if (insideBraces && (char === "," || char === "}")) return { ok: true, source, end: index };
    if (char === "*") {
      const isDoubleStar = glob.charAt(index + 1) === "*";
      if (!isDoubleStar) {
        source += "[^/]*";
        index += 1;
      } else if (glob.charAt(index + 2) === "/") {
        // `**/` may also match no folder at all: `src/**/a.ts` matches `src/a.ts`.
        source += "(?:.*/)?";
        index += 3;
      } else {
        source += ".*";
        index += 2;
      }
      continue;
    }
    if (char === "?") {
      source += "[^/]";
      index += 1;
      continue;
    }
    if (char === "{") {
      const alternatives = translateAlternatives(glob, index + 1);
      if (!alternatives.ok) return alternatives;
      source += alternatives.source;
      index = alternatives.end;
      continue;
    }
    source += REGEX_SPECIALS.has(char) ? `\\${char}` : char;
    index += 1;
  }
  if (insideBraces) return { ok: false, error: `Glob ${JSON.stringify(glob)} has an unclosed "{".` };
  return { ok: true, source, end: index };
}

function translateAlternatives(glob: string, start: number): Translation {
  const options: string[] = [];
  let index = start;
  for (;;) {
    const option = translate(glob, index, true);
    if (!option.ok) return option;
    options.push(option.source);
    index = option.end + 1;
    if (glob.charAt(option.end) === "}") return { ok: true, source: `(?:${options.join("|")})`, end: index };
  }
}
