import { skillCategories, type SkillIndex } from "./skill-index.js";

const MAX_HINT_CATEGORIES = 12;

/**
 * A short system-prompt paragraph saying that skills exist and how to reach them. It deliberately leaves the index
 * out: listing every skill in the prompt is what progressive loading avoids, and a paragraph that changes only when
 * skills are added or removed keeps the provider's prompt cache warm.
 */
export function skillsPromptHint(index: SkillIndex, options: { canManage?: boolean } = {}): string {
  const count = index.skills.size;
  const lines: string[] = ["# Skills"];
  if (count === 0) {
    lines.push("No skills are installed yet.");
  } else {
    const categories = skillCategories(index.skills.values());
    const shown = categories.slice(0, MAX_HINT_CATEGORIES).join(", ");
    const more = categories.length > MAX_HINT_CATEGORIES ? ", …" : "";
    const about = categories.length > 0 ? ` (categories: ${shown}${more})` : "";
    lines.push(
      `You have ${count} ${count === 1 ? "skill" : "skills"}${about}: tested instructions for recurring tasks. ` +
        "Before starting a task a skill may cover, call skills_list to see what exists, then skill_view(name) to load " +
        "the matching skill and follow it; load its supporting files with skill_view(name, file) only when needed.",
    );
  }
  if (options.canManage === true) {
    lines.push(
      "When you work out a reusable procedure or the user corrects your approach, save or improve a skill with " +
        "skill_manage so the lesson is kept for next time.",
    );
  }
  return lines.join("\n");
}
