import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const source = (name: string): string => fileURLToPath(new URL(`./packages/${name}/src/index.ts`, import.meta.url));

export default defineConfig({
  // Tests import the TypeScript sources; processes the tests start run the compiled dist/ (built by `pretest`).
  resolve: {
    alias: Object.fromEntries(["agent", "store", "gateway", "telegram", "discord", "slack"].map((name) => [`@hermes/${name}`, source(name)])),
  },
  test: {
    include: ["packages/*/src/**/*.test.ts", "apps/*/src/**/*.test.ts", "test/**/*.test.ts"],
    // Installs redis-server once when a fresh machine lacks it (or fails fast naming the package).
    globalSetup: ["test/support/global-setup.ts"],
    pool: "forks",
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Tests must never read the operator's real state or credentials.
    env: { HERMES_HOME: "", TZ: "UTC" },
  },
});
