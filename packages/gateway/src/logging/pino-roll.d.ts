// pino-roll ships no type declarations; this covers the part of its API the rolling log file uses. It resolves to a
// sonic-boom stream (described here structurally: sonic-boom is pino's dependency, not ours).
declare module "pino-roll" {
  import type { EventEmitter } from "node:events";

  interface PinoRollOptions {
    file: string | (() => string);
    /** A number means megabytes; a string may end in b, k, m or g. */
    size?: string | number;
    frequency?: "daily" | "hourly" | number;
    extension?: string;
    symlink?: boolean;
    /** With `removeOtherLogFiles`, `count` is the number of files kept in all, the current one included. */
    limit?: { count: number; removeOtherLogFiles?: boolean };
    dateFormat?: string;
    sync?: boolean;
    mkdir?: boolean;
    append?: boolean;
  }

  export interface RollingStream extends EventEmitter {
    /** The file written now. */
    readonly file: string;
    write(data: string): boolean;
    flushSync(): void;
    end(): void;
  }

  export default function pinoRoll(options: PinoRollOptions): Promise<RollingStream>;
}
