import type { Usage } from "@mariozechner/pi-ai";

/** Token and cost totals accumulated from pi-ai `Usage` reports. */
export interface UsageTotals {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  totalTokens: number;
  costUsd: number;
}

export function emptyUsageTotals(): UsageTotals {
  return { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, costUsd: 0 };
}

/** Pure: returns a new object. Missing, negative or non-finite fields count as zero. */
export function addUsage(totals: UsageTotals, usage: Usage): UsageTotals {
  const report: Partial<Usage> = typeof usage === "object" && usage !== null ? usage : {};
  const input = amount(report.input);
  const output = amount(report.output);
  const cacheRead = amount(report.cacheRead);
  const cacheWrite = amount(report.cacheWrite);
  const reportedTotal = report.totalTokens;
  // Some providers omit the total; the parts are then the best estimate.
  const totalTokens = isAmount(reportedTotal) ? reportedTotal : input + output + cacheRead + cacheWrite;
  const cost: unknown = report.cost;
  const costUsd = typeof cost === "object" && cost !== null && "total" in cost ? amount(cost.total) : 0;
  return {
    input: totals.input + input,
    output: totals.output + output,
    cacheRead: totals.cacheRead + cacheRead,
    cacheWrite: totals.cacheWrite + cacheWrite,
    totalTokens: totals.totalTokens + totalTokens,
    costUsd: totals.costUsd + costUsd,
  };
}

export interface ModelRef {
  provider: string;
  id: string;
}

export interface ModelUsageTotals {
  provider: string;
  model: string;
  totals: UsageTotals;
}

/** Accumulates usage overall and per (provider, model). */
export class CostTracker {
  private overall = emptyUsageTotals();
  private readonly perModel = new Map<string, ModelUsageTotals>();

  add(usage: Usage, model: ModelRef): void {
    this.overall = addUsage(this.overall, usage);
    const provider = text(model?.provider);
    const id = text(model?.id);
    const key = JSON.stringify([provider, id]);
    const entry = this.perModel.get(key) ?? { provider, model: id, totals: emptyUsageTotals() };
    entry.totals = addUsage(entry.totals, usage);
    this.perModel.set(key, entry);
  }

  totals(): UsageTotals {
    return { ...this.overall };
  }

  /** Ordered by provider, then model, so reports are stable. */
  byModel(): ModelUsageTotals[] {
    return [...this.perModel.values()]
      .map((entry) => ({ provider: entry.provider, model: entry.model, totals: { ...entry.totals } }))
      .sort((a, b) => compareText(a.provider, b.provider) || compareText(a.model, b.model));
  }
}

function isAmount(value: unknown): value is number {
  return typeof value === "number" && Number.isFinite(value) && value >= 0;
}

function amount(value: unknown): number {
  return isAmount(value) ? value : 0;
}

function text(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === undefined || value === null) return "unknown";
  try {
    return String(value);
  } catch {
    return "unknown";
  }
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
