#!/usr/bin/env node
// Compiles every workspace's src/ to dist/ (one JavaScript file per TypeScript file, same folder layout), so the
// processes start on plain JavaScript instead of transpiling on every start. Type-checking is `npm run typecheck`;
// this step only strips types, which takes well under a second. Runs from `prepare` (npm ci) and before `npm test`.
import { cp, readdir, rename, rm } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const workspaces = ["packages", "apps"];
// Tests, their fixtures and type declarations are not part of what runs.
const isTest = (file) => /\.test\.ts$|fixture|[\\/]test-fixtures[\\/]|\.d\.ts$/.test(file);

async function filesUnder(dir) {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => path.join(entry.parentPath, entry.name));
}

async function buildWorkspace(dir) {
  const src = path.join(dir, "src");
  const dist = path.join(dir, "dist");
  // Built beside dist/ and swapped in at the end, so a process starting meanwhile never finds half a build.
  const next = path.join(dir, ".dist-next");
  const files = (await filesUnder(src)).filter((file) => !isTest(file));
  await rm(next, { recursive: true, force: true });
  await build({
    entryPoints: files.filter((file) => file.endsWith(".ts")),
    outdir: next,
    outbase: src,
    format: "esm",
    platform: "node",
    target: "node20",
    sourcemap: true,
    logLevel: "warning",
  });
  // Data read at run time next to the code (e.g. reflection frameworks) travels with it.
  for (const file of files.filter((name) => !name.endsWith(".ts"))) {
    await cp(file, path.join(next, path.relative(src, file)));
  }
  const old = path.join(dir, ".dist-old");
  await rm(old, { recursive: true, force: true });
  await rename(dist, old).catch(() => undefined);
  await rename(next, dist);
  await rm(old, { recursive: true, force: true });
}

const started = Date.now();
const dirs = [];
for (const group of workspaces) {
  for (const entry of await readdir(path.join(root, group), { withFileTypes: true })) {
    if (entry.isDirectory()) dirs.push(path.join(root, group, entry.name));
  }
}
await Promise.all(dirs.map(buildWorkspace));
process.stderr.write(`built ${dirs.length} workspaces in ${Date.now() - started} ms\n`);
