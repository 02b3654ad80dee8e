/** One thing wrong with the configuration, named by the setting (or file) an operator has to fix. */
export interface ConfigIssue {
  readonly setting: string;
  readonly message: string;
}

/** The text printed when start-up refuses the configuration: every problem at once, no stack trace. */
export function formatConfigIssues(issues: readonly ConfigIssue[]): string {
  const lines = issues.map((issue) => `- ${issue.setting}: ${issue.message.replace(/\r?\n/g, "\n  ")}`);
  return ["Invalid configuration:", ...lines].join("\n");
}
