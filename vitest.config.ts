import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import { EndToEndFirstSequencer } from "./test/support/end-to-end-first.js";

const source = (name: string): string => fileURLToPath(new URL(`./packages/${name}/src/index.ts`, import.meta.url));

export default defineConfig({
  // Tests import the TypeScript sources; processes the tests start run the compiled dist/ (built by `pretest`).
  resolve: {
    alias: Object.fromEntries(["agent", "store", "gateway", "telegram", "discord", "slack"].map((name) => [`@hermes/${name}`, source(name)])),
  },
  test: {
    include: ["packages/*/src/**/*.test.ts", "apps/*/src/**/*.test.ts", "test/**/*.test.ts"],
    // Installs redis-server and PostgreSQL once when a fresh machine lacks them (or fails fast naming the package).
    globalSetup: ["test/support/global-setup.ts"],
    // Puts back process-wide state (environment, timers, OpenTelemetry globals) after each file; see isolate below.
    setupFiles: ["test/support/restore-process-state.ts"],
    pool: "forks",
    // Most slow files wait on processes, sockets and timers rather than on a core, so one file more than there are
    // cores keeps the machine busy (vitest's default, one fewer, runs a single file at a time on 2 cores). Every file
    // starts its own redis-server, servers and temp folders on free ports, so files do not share state.
    // VITEST_MAX_WORKERS overrides it.
    maxWorkers: Math.max(2, availableParallelism() + 1),
    // A worker process runs file after file with the modules it already loaded: a fresh process per file spent more
    // CPU importing @hermes/agent (pi-ai, every built-in tool) than most files spend testing. Files restore what they
    // change, and the setup file above puts back the environment, timers and OpenTelemetry globals after each file
    // (an in-process gateway sets $HERMES_HOME itself), so none depends on running first; vi.mock would leak into the
    // next file and is not used.
    isolate: false,
    sequence: { sequencer: EndToEndFirstSequencer },
    // A bound for a test that hangs, not a speed check: with three files at once on two cores, a test that starts the
    // CLI or a gateway several times in a row has been seen to need more than 30 s.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Tests must never read the operator's real state or credentials.
    env: { HERMES_HOME: "", TZ: "UTC" },
  },
});
