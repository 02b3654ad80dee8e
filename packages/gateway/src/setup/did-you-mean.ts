import { editDistance } from "../config/edit-distance.js";

/** The candidates closest to a mistyped word: within a few edits, or containing it (or contained in it). */
export function closestMatches(word: string, candidates: readonly string[], limit = 3): string[] {
  const wanted = word.toLowerCase();
  const budget = Math.max(2, Math.floor(wanted.length / 4));
  return candidates
    .map((candidate) => ({ candidate, distance: editDistance(wanted, candidate.toLowerCase()) }))
    .filter(({ candidate, distance }) => distance <= budget || candidate.toLowerCase().includes(wanted) || (candidate.length >= 3 && wanted.includes(candidate.toLowerCase())))
    .sort((a, b) => a.distance - b.distance || a.candidate.localeCompare(b.candidate))
    .slice(0, limit)
    .map(({ candidate }) => candidate);
}

/** ` Did you mean "a" or "b"?`, or "" when nothing is close. */
export function didYouMean(word: string, candidates: readonly string[]): string {
  const close = closestMatches(word, candidates);
  if (close.length === 0) return "";
  const quoted = close.map((name) => JSON.stringify(name));
  const last = quoted.pop() ?? "";
  return ` Did you mean ${quoted.length > 0 ? `${quoted.join(", ")} or ${last}` : last}?`;
}
