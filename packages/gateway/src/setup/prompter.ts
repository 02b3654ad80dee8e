/** The questions the setup wizard asks; `undefined` means the operator cancelled (Ctrl+C). */
export interface SetupPrompter {
  intro(title: string): void;
  outro(text: string): void;
  info(text: string): void;
  warn(text: string): void;
  success(text: string): void;
  text(question: { message: string; placeholder?: string; initialValue?: string; validate?: (value: string) => string | undefined }): Promise<string | undefined>;
  /** Input is masked: secrets are never echoed. */
  password(question: { message: string; validate?: (value: string) => string | undefined }): Promise<string | undefined>;
  select<T extends string>(question: { message: string; options: ReadonlyArray<{ value: T; label: string; hint?: string }>; initialValue?: T }): Promise<T | undefined>;
  multiselect<T extends string>(question: { message: string; options: ReadonlyArray<{ value: T; label: string; hint?: string }> }): Promise<T[] | undefined>;
  confirm(question: { message: string; initialValue?: boolean }): Promise<boolean | undefined>;
  /** Runs `work` while a spinner shows `message`. */
  during<T>(message: string, work: () => Promise<T>): Promise<T>;
}

/** The wizard on a terminal, with @clack/prompts; loaded only when the wizard runs. */
export async function clackPrompter(streams: { input: NodeJS.ReadableStream; output: NodeJS.WritableStream }): Promise<SetupPrompter> {
  const clack = await import("@clack/prompts");
  const io = { input: streams.input as NodeJS.ReadStream, output: streams.output as NodeJS.WriteStream };
  const settled = <T>(value: T | symbol): T | undefined => (clack.isCancel(value) ? undefined : (value as T));
  const validator = (validate?: (value: string) => string | undefined) => (validate ? (value: string | undefined) => validate(value ?? "") : undefined);
  return {
    intro: (title) => clack.intro(title, io),
    outro: (text) => clack.outro(text, io),
    info: (text) => clack.log.info(text, io),
    warn: (text) => clack.log.warn(text, io),
    success: (text) => clack.log.success(text, io),
    text: async (question) => settled<string>(await clack.text({ ...io, message: question.message, placeholder: question.placeholder, initialValue: question.initialValue, validate: validator(question.validate) })),
    password: async (question) => settled<string>(await clack.password({ ...io, message: question.message, validate: validator(question.validate) })),
    // The answer is one of the options given, all of type T; clack cannot carry T through its option type.
    select: async <T extends string>(question: { message: string; options: ReadonlyArray<{ value: T; label: string; hint?: string }>; initialValue?: T }) =>
      settled<string>(await clack.select<string>({ ...io, message: question.message, options: question.options.map((option) => ({ ...option })), initialValue: question.initialValue })) as T | undefined,
    multiselect: async <T extends string>(question: { message: string; options: ReadonlyArray<{ value: T; label: string; hint?: string }> }) =>
      settled<string[]>(await clack.multiselect<string>({ ...io, message: question.message, options: question.options.map((option) => ({ ...option })), required: false })) as T[] | undefined,
    confirm: async (question) => settled<boolean>(await clack.confirm({ ...io, message: question.message, initialValue: question.initialValue })),
    during: async (message, work) => {
      const spin = clack.spinner({ output: io.output });
      spin.start(message);
      try {
        return await work();
      } finally {
        spin.stop(message);
      }
    },
  };
}
