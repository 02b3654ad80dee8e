import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { nodeOptionsOf } from "./support/app-process.js";

// No Docker engine runs here, so these checks read the files' wiring; `docker build` itself is not exercised.
const root = fileURLToPath(new URL("..", import.meta.url));

interface Instruction {
  keyword: string;
  args: string;
}

/** Splits a Dockerfile into instructions, joining `\` continuations and dropping comments. */
function instructions(text: string): Instruction[] {
  const result: Instruction[] = [];
  let pending = "";
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (pending === "" && (line === "" || line.startsWith("#"))) continue;
    if (line.startsWith("#")) continue;
    if (line.endsWith("\\")) {
      pending += `${line.slice(0, -1)} `;
      continue;
    }
    const full = `${pending}${line}`.trim();
    pending = "";
    const match = /^(\S+)\s*(.*)$/.exec(full);
    if (match?.[1] !== undefined) result.push({ keyword: match[1].toUpperCase(), args: match[2] ?? "" });
  }
  return result;
}

/** The instructions of each build stage, in order; a stage starts at its FROM. */
function stages(list: Instruction[]): Instruction[][] {
  const result: Instruction[][] = [];
  for (const instruction of list) {
    if (instruction.keyword === "FROM") result.push([]);
    result.at(-1)?.push(instruction);
  }
  return result;
}

function execForm(args: string): string[] {
  const parsed: unknown = JSON.parse(args);
  if (!Array.isArray(parsed) || !parsed.every((part) => typeof part === "string")) throw new Error(`not an exec form: ${args}`);
  return parsed;
}

interface ComposeService {
  image?: string;
  volumes?: string[];
  depends_on?: Record<string, { condition?: string }>;
  build?: unknown;
  command?: string[];
  environment?: Record<string, string>;
  env_file?: unknown;
  ports?: string[];
  healthcheck?: { test?: string[] };
  stop_grace_period?: string;
  pull_policy?: string;
}

function seconds(duration: string | undefined): number {
  const match = /^(\d+)(s|m)$/.exec(duration ?? "");
  if (match?.[1] === undefined) throw new Error(`unreadable duration: ${String(duration)}`);
  return Number(match[1]) * (match[2] === "m" ? 60 : 1);
}

describe("Dockerfile", () => {
  let list: Instruction[];
  let final: Instruction[];
  beforeAll(async () => {
    list = instructions(await readFile(`${root}Dockerfile`, "utf8"));
    final = stages(list).at(-1) ?? [];
  });

  it("builds in one stage and runs from a Node 24 runtime stage", () => {
    const froms = list.filter((instruction) => instruction.keyword === "FROM").map((instruction) => instruction.args);
    expect(froms.length).toBeGreaterThanOrEqual(2);
    expect(froms.at(-1)).toMatch(/^node:24[\w.-]*(\s|$)/);
    expect(final.some((instruction) => instruction.keyword === "COPY" && instruction.args.includes("--from="))).toBe(true);
  });

  it("keeps compilers, sources and dev dependencies out of the runtime stage", () => {
    const runs = final.filter((instruction) => instruction.keyword === "RUN").map((instruction) => instruction.args);
    expect(runs.join("\n")).not.toMatch(/apt-get|npm (ci|install)/);
    const copies = final.filter((instruction) => instruction.keyword === "COPY").map((instruction) => instruction.args);
    expect(copies.join("\n")).not.toMatch(/\bsrc\b/);
    const build = stages(list)[0] ?? [];
    expect(build.some((instruction) => instruction.keyword === "RUN" && /npm prune --omit=dev/.test(instruction.args))).toBe(true);
  });

  it("runs as a non-root user", () => {
    const users = final.filter((instruction) => instruction.keyword === "USER").map((instruction) => instruction.args.trim());
    expect(users.length).toBeGreaterThan(0);
    expect(users.at(-1)).not.toMatch(/^(root|0)(:|$)/);
  });

  it("starts node directly, so it receives the stop signal, with the node options of npm start", () => {
    const cmd = final.filter((instruction) => instruction.keyword === "CMD").at(-1);
    expect(cmd).toBeDefined();
    const argv = execForm(cmd?.args ?? "");
    expect(argv).toEqual(["node", ...nodeOptionsOf("gateway"), "apps/gateway/dist/main.js"]);
    expect(final.some((instruction) => instruction.keyword === "ENTRYPOINT")).toBe(false);
  });

  it("probes /healthz and listens on every interface inside the container", () => {
    const healthcheck = final.find((instruction) => instruction.keyword === "HEALTHCHECK");
    expect(healthcheck?.args).toMatch(/CMD .*node.*\/healthz/);
    const env = final.filter((instruction) => instruction.keyword === "ENV").map((instruction) => instruction.args).join(" ");
    expect(env).toMatch(/HERMES_HTTP_HOST=0\.0\.0\.0/);
    expect(env).toMatch(/HERMES_HOME=\/data/);
    expect(final.some((instruction) => instruction.keyword === "EXPOSE" && instruction.args.trim() === "8642")).toBe(true);
  });

  it("has a .dockerignore that keeps local state and secrets out of the build context", async () => {
    const ignored = (await readFile(`${root}.dockerignore`, "utf8")).split(/\r?\n/).map((line) => line.trim());
    for (const entry of ["node_modules", "dist", ".git", ".env", ".tmp", "*.log", "coverage"]) expect(ignored).toContain(entry);
  });
});

describe("docker-compose.yml", () => {
  let services: Record<string, ComposeService>;
  beforeAll(async () => {
    const compose = parse(await readFile(`${root}docker-compose.yml`, "utf8")) as { services: Record<string, ComposeService> };
    services = compose.services;
  });

  const app = (): ComposeService[] => [services.gateway ?? {}, services.worker ?? {}];

  it("builds one image and runs gateway and worker from it", () => {
    const { gateway, worker } = services;
    expect(gateway?.image).toBeTruthy();
    expect(worker?.image).toBe(gateway?.image);
    expect(gateway?.build).toBeDefined();
    expect(worker?.build).toBeUndefined();
    expect(worker?.pull_policy).toBe("never");
  });

  it("runs node directly in both services, with the node options of npm start / npm run worker", () => {
    expect(services.gateway?.command).toEqual(["node", ...nodeOptionsOf("gateway"), "apps/gateway/dist/main.js"]);
    expect(services.worker?.command).toEqual(["node", ...nodeOptionsOf("worker"), "apps/worker/dist/main.js"]);
  });

  it("health-checks redis, the gateway and the workers on their own ports", () => {
    expect(services.redis?.healthcheck?.test?.join(" ")).toMatch(/redis-cli ping/);
    expect(services.gateway?.healthcheck?.test?.join(" ")).toMatch(/8642\/healthz/);
    const workerPort = services.worker?.environment?.HERMES_WORKER_HTTP_PORT;
    expect(workerPort).toMatch(/^\d+$/);
    expect(services.worker?.healthcheck?.test?.join(" ")).toContain(`:${String(workerPort)}/healthz`);
  });

  it("gives shutdown longer than the 10 s drain", () => {
    for (const service of app()) expect(seconds(service.stop_grace_period)).toBeGreaterThan(10);
  });

  it("publishes the HTTP port on loopback only", () => {
    const published = Object.values(services).flatMap((service) => service.ports ?? []);
    expect(published.length).toBeGreaterThan(0);
    for (const port of published) expect(port).toMatch(/^127\.0\.0\.1:/);
  });

  it("reads .env only when it exists", () => {
    for (const service of app()) expect(service.env_file).toEqual([{ path: ".env", required: false }]);
  });

  it("points both roles at the compose Redis and PostgreSQL, each with a state folder of its own", () => {
    for (const service of app()) {
      expect(service.environment?.REDIS_URL).toBe("redis://redis:6379");
      expect(service.environment?.HERMES_DATABASE_URL).toMatch(/^postgres:\/\/hermes:[^@]+@postgres:5432\/hermes$/);
      expect(service.environment?.HERMES_HOME).toBe("/data");
      // Scaled containers must not share a folder: everything shared is in PostgreSQL and Redis.
      expect(service.volumes ?? []).toEqual([]);
      expect(service.depends_on?.postgres?.condition).toBe("service_healthy");
      expect(service.depends_on?.redis?.condition).toBe("service_healthy");
    }
  });

  it("keeps PostgreSQL's data in a volume and health-checks it", () => {
    expect(services.postgres?.volumes).toEqual(["postgres-data:/var/lib/postgresql/data"]);
    expect(services.postgres?.healthcheck?.test?.join(" ")).toMatch(/pg_isready/);
  });

  it("publishes a port range for the gateway, so --scale gateway=2 can start a standby", () => {
    expect(services.gateway?.ports).toEqual(["127.0.0.1:8642-8643:8642"]);
    expect(services.worker?.ports).toBeUndefined();
  });
});
