import { bootstrap, checkHomeFilesShareable } from "@hermes/gateway";
import { copySqliteToPostgres, migrateDatabase, redactDatabaseUrl } from "@hermes/store";
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE, stringOption, type ParsedCommand } from "../cli/command-spec.js";
import { formatCommandHelp } from "../cli/usage.js";
import { formatCopyReport, formatNextStep } from "./copy-report.js";
import { shareHomeInto } from "./share-home.js";

export interface DbIo {
  env: Record<string, string | undefined>;
  cwd: string;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

/** `hermes db migrate` and `hermes db copy --to <postgres-url>`. */
export async function dbCommand(command: ParsedCommand, io: DbIo): Promise<number> {
  return command.spec.name === "migrate" ? migrate(io) : copy(command, io);
}

async function migrate(io: DbIo): Promise<number> {
  const boot = await bootstrap({ env: io.env, cwd: io.cwd, stderr: io.stderr, logName: "cli", traces: false });
  if (!boot.ok) return boot.exitCode;
  const { config } = boot.value;
  const result = await migrateDatabase({ file: config.paths.stateDb, ...(config.databaseUrl !== undefined && { databaseUrl: config.databaseUrl }) });
  if (!result.ok) {
    io.stderr.write(`hermes db migrate: cannot migrate ${result.database}: ${result.error.message}\n`);
    return EXIT_FAILED;
  }
  io.stdout.write(`Database: ${result.database}\n`);
  io.stdout.write(result.applied.length === 0 ? "Already up to date.\n" : `Applied ${result.applied.length} migration(s): ${result.applied.join(", ")}\n`);
  return EXIT_OK;
}

async function copy(command: ParsedCommand, io: DbIo): Promise<number> {
  const target = stringOption(command.values, "to");
  const problem = target === undefined || target === "" ? "Missing option --to <postgres-url>." : urlProblem(target);
  if (problem !== undefined || target === undefined) {
    io.stderr.write(`${problem ?? ""}\n\n${formatCommandHelp(["db"], command.spec)}\n`);
    return EXIT_USAGE;
  }
  const boot = await bootstrap({ env: io.env, cwd: io.cwd, stderr: io.stderr, logName: "cli", traces: false });
  if (!boot.ok) return boot.exitCode;
  const { config } = boot.value;
  const source = config.paths.stateDb;
  // A skill file too large to share is refused while the target is still empty, so copying again needs no new database.
  const shareable = await checkHomeFilesShareable(config.home);
  if (!shareable.ok) {
    io.stderr.write(`hermes db copy: nothing was copied: ${shareable.error}. Make that file smaller or remove it, then copy again.\n`);
    return EXIT_FAILED;
  }
  io.stdout.write(`Copying ${source} into ${redactDatabaseUrl(target)}\n`);
  const result = await copySqliteToPostgres({
    file: source,
    databaseUrl: target,
    // The install keeps memory in files; PostgreSQL keeps it in memory_documents, so they go in with the tables.
    memoryDir: config.paths.memory,
    onTableCopied: (table, rows) => io.stderr.write(`  ${table}: ${rows} row(s)\n`),
  });
  if (!result.ok) {
    io.stderr.write(`hermes db copy: ${result.error.message}\n`);
    return EXIT_FAILED;
  }
  io.stdout.write(formatCopyReport(result));
  const shared = await shareHomeInto({ databaseUrl: target, home: config.home, stateDb: source });
  if (!shared.ok) {
    io.stderr.write(
      `hermes db copy: the tables are copied, but sharing the files of ${config.home} stopped: ${shared.message}. Fix the cause, then drop and create the database and copy again.\n`,
    );
    return EXIT_FAILED;
  }
  io.stdout.write(`Shared ${shared.files} file(s) of ${config.home} (agent-made skills, hook choices; ${shared.bytes} bytes), ${shared.unchanged} already there.\n`);
  io.stdout.write(formatNextStep(result.target));
  return EXIT_OK;
}

/** Why `--to` cannot be a PostgreSQL database, without echoing what may hold a password. */
function urlProblem(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return "--to must be a postgres:// or postgresql:// URL (it is not a URL).";
  }
  if (url.protocol !== "postgres:" && url.protocol !== "postgresql:") return `--to must be a postgres:// or postgresql:// URL, not ${url.protocol}//….`;
  return undefined;
}
