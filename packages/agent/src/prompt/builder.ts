import { createHash } from "node:crypto";
import * as os from "node:os";
import { silentLogger, type Logger } from "../observability/logger.js";
import { loadContextFile, stampContextFile, type ContextFile } from "./context-files.js";
import {
  contextFileLayer,
  customPromptLayer,
  dateLayer,
  identityLayer,
  memoryLayer,
  platformLayer,
  toolGuidanceLayer,
  toolRulesLayer,
  type PromptPlatform,
  type PromptTool,
} from "./layers.js";
import type { PLATFORM_HINTS } from "./platform-hints.js";

export type { PromptPlatform, PromptTool } from "./layers.js";

export interface PromptInputs {
  identity?: string;
  customPrompt?: string;
  tools: PromptTool[];
  memoryBlock?: string;
  contextFile?: ContextFile | null;
  now: Date;
  platform: PromptPlatform & { chatPlatform?: keyof typeof PLATFORM_HINTS | string };
}

/** Renders the eight layers in order, leaving out empty ones. Pure: equal inputs give an equal string. */
export function buildSystemPrompt(inputs: PromptInputs): string {
  return renderLayers(inputs)
    .map((layer) => layer.trim())
    .filter((layer) => layer !== "")
    .join("\n\n");
}

function renderLayers(inputs: PromptInputs): string[] {
  return [
    identityLayer(inputs.identity),
    customPromptLayer(inputs.customPrompt),
    toolRulesLayer(inputs.tools),
    toolGuidanceLayer(inputs.tools),
    memoryLayer(inputs.memoryBlock),
    contextFileLayer(inputs.contextFile),
    dateLayer(inputs.now),
    platformLayer(inputs.platform),
  ];
}

/**
 * sha256 over everything the prompt text depends on. The context file contributes only what the layer shows
 * (so touching it without editing keeps the fingerprint) and the date only its day.
 */
export function fingerprintPromptInputs(inputs: PromptInputs): string {
  const file = inputs.contextFile ?? null;
  const canonical = {
    identity: inputs.identity ?? null,
    customPrompt: inputs.customPrompt ?? null,
    tools: inputs.tools.map((tool) => [tool.name, tool.guidance ?? null]),
    memoryBlock: inputs.memoryBlock ?? null,
    contextFile:
      file === null
        ? null
        : { name: file.name, blocked: file.blocked, content: file.content, kinds: file.findings.map((f) => f.kind) },
    date: dateLayer(inputs.now),
    platform: [
      inputs.platform.os,
      inputs.platform.release,
      inputs.platform.node,
      inputs.platform.chatPlatform ?? null,
      inputs.platform.hint ?? null,
    ],
  };
  return createHash("sha256").update(JSON.stringify(canonical)).digest("hex");
}

export interface SystemPromptBuilderOptions {
  identity?: string;
  customPrompt?: string;
  /** Folder searched for HERMES.md, AGENTS.md, CLAUDE.md or .cursorrules; no context file when absent. */
  contextDir?: string;
  /** What to do with a context file that looks like a prompt injection (default "block"). */
  onThreat?: "block" | "warn";
  /** Context file size limit in characters (default 20 000). */
  contextMaxChars?: number;
  logger?: Logger;
  now?: () => Date;
  /** The file system's clock in ms (default Date.now), against which a context file's last change is judged recent. */
  fileClock?: () => number;
  /** Overrides for the host description; the rest is read from the running process. */
  platform?: Partial<PromptInputs["platform"]>;
}

export interface BuiltSystemPrompt {
  prompt: string;
  /** False when the prompt is the very string returned by the previous build. */
  changed: boolean;
  fingerprint: string;
}

export interface PromptBuildRequest {
  tools: PromptTool[];
  memoryBlock?: string;
  chatPlatform?: string;
}

/**
 * Builds the system prompt turn after turn and keeps it byte-identical until something in it changes, so
 * the provider's prefix cache keeps hitting. The context file is re-read only when its stamp changes.
 */
export class SystemPromptBuilder {
  private readonly options: SystemPromptBuilderOptions;
  private readonly logger: Logger;
  private readonly now: () => Date;
  private readonly platform: PromptPlatform;
  private contextStampKey: string | undefined;
  private contextFile: ContextFile | null = null;
  private previous: { fingerprint: string; prompt: string } | undefined;

  constructor(options: SystemPromptBuilderOptions) {
    this.options = options;
    this.logger = options.logger ?? silentLogger;
    this.now = options.now ?? (() => new Date());
    this.platform = {
      os: options.platform?.os ?? os.type(),
      release: options.platform?.release ?? os.release(),
      node: options.platform?.node ?? process.version,
      chatPlatform: options.platform?.chatPlatform,
      hint: options.platform?.hint,
    };
  }

  async build(dynamic: PromptBuildRequest): Promise<BuiltSystemPrompt> {
    const inputs: PromptInputs = {
      identity: this.options.identity,
      customPrompt: this.options.customPrompt,
      tools: dynamic.tools,
      memoryBlock: dynamic.memoryBlock,
      contextFile: await this.currentContextFile(),
      now: this.now(),
      platform: this.platformFor(dynamic.chatPlatform),
    };

    const fingerprint = fingerprintPromptInputs(inputs);
    if (this.previous !== undefined && this.previous.fingerprint === fingerprint) {
      return { prompt: this.previous.prompt, changed: false, fingerprint };
    }
    const prompt = buildSystemPrompt(inputs);
    this.previous = { fingerprint, prompt };
    return { prompt, changed: true, fingerprint };
  }

  // A configured hint describes the configured platform; a turn from another platform gets that one's defaults.
  private platformFor(chatPlatform: string | undefined): PromptPlatform {
    if (chatPlatform === undefined || chatPlatform === this.platform.chatPlatform) return this.platform;
    const { hint: _configuredHint, ...rest } = this.platform;
    return { ...rest, chatPlatform };
  }

  private async currentContextFile(): Promise<ContextFile | null> {
    const dir = this.options.contextDir;
    if (dir === undefined) return null;
    const stamp = await stampContextFile(dir, this.options.fileClock);
    const key = stamp === null ? "none" : `${stamp.name}|${stamp.key}`;
    if (key === this.contextStampKey) return this.contextFile;
    this.contextFile =
      stamp === null
        ? null
        : await loadContextFile(dir, {
            onThreat: this.options.onThreat ?? "block",
            logger: this.logger,
            maxChars: this.options.contextMaxChars,
          });
    // A file that changed just now may change again without its stamp changing: it is read again next time.
    this.contextStampKey = stamp === null || stamp.settled ? key : undefined;
    return this.contextFile;
  }
}
