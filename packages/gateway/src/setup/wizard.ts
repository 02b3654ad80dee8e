import { configYamlPath, saveConfigYaml } from "./config-file.js";
import type { ProbeDeps } from "./probe-result.js";
import type { SetupPrompter } from "./prompter.js";
import { configUpdatesFor, readSetupContext, shadowedSettingsNote, type SetupAnswers } from "./setup-answers.js";
import { askDiscord, askModel, askRedis, askSlack, askTelegram, CANCELLED, type WizardDeps } from "./wizard-steps.js";

export type WizardOutcome = { kind: "saved"; file: string; answers: SetupAnswers } | { kind: "cancelled" } | { kind: "failed"; error: string };

type Platform = "telegram" | "discord" | "slack";

/** `hermes setup` on a terminal (also offered by `npm start` when nothing is configured). */
export async function runSetupWizard(options: { env: Readonly<Record<string, string | undefined>>; cwd: string; prompter: SetupPrompter; probe: ProbeDeps }): Promise<WizardOutcome> {
  const { prompter } = options;
  const file = await configYamlPath(options);
  const context = await readSetupContext(options);
  const deps: WizardDeps = { prompter, context, probe: options.probe };
  prompter.intro("Hermes setup");
  prompter.info(`Your answers are checked online and saved to ${file} (readable only by you). Ctrl+C stops without saving.`);

  const model = await askModel(deps);
  if (model === CANCELLED) return cancelled(prompter);
  const platforms = await prompter.multiselect<Platform>({
    message: "Which chat platforms should the bot be on? (space to pick; none is fine: npm run chat talks in the terminal)",
    options: [
      { value: "telegram", label: "Telegram" },
      { value: "discord", label: "Discord" },
      { value: "slack", label: "Slack" },
    ],
  });
  if (platforms === undefined) return cancelled(prompter);
  const telegram = platforms.includes("telegram") ? await askTelegram(deps) : undefined;
  if (telegram === CANCELLED) return cancelled(prompter);
  const discord = platforms.includes("discord") ? await askDiscord(deps) : undefined;
  if (discord === CANCELLED) return cancelled(prompter);
  const slack = platforms.includes("slack") ? await askSlack(deps) : undefined;
  if (slack === CANCELLED) return cancelled(prompter);
  const redisUrl = await askRedis(deps);
  if (redisUrl === CANCELLED) return cancelled(prompter);

  const answers: SetupAnswers = { ...(model && { model }), ...(telegram && { telegram }), ...(discord && { discord }), ...(slack && { slack }), ...(redisUrl && { redisUrl }) };
  const updates = configUpdatesFor(answers);
  if (updates.size === 0) {
    prompter.outro("Nothing changed.");
    return { kind: "saved", file, answers };
  }
  const saved = await saveConfigYaml(file, updates);
  if (!saved.ok) {
    prompter.warn(saved.error);
    return { kind: "failed", error: saved.error };
  }
  const shadowed = shadowedSettingsNote(updates, context);
  if (shadowed !== undefined) prompter.warn(`${shadowed.charAt(0).toUpperCase()}${shadowed.slice(1)}.`);
  prompter.success(`Saved ${[...updates.keys()].filter((name) => updates.get(name) !== null).join(", ")} to ${file}.`);
  prompter.outro("Start the bot with npm start; npm run hermes -- doctor checks everything again.");
  return { kind: "saved", file, answers };
}

function cancelled(prompter: SetupPrompter): WizardOutcome {
  prompter.outro("Setup cancelled; nothing was saved.");
  return { kind: "cancelled" };
}
