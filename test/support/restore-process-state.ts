import { context, diag, propagation, trace } from "@opentelemetry/api";
import { afterAll, vi } from "vitest";

/**
 * With `isolate: false` a worker runs file after file in one process, so whatever a file leaves in process-wide state
 * meets the next file. Some of it is the product's own doing (a gateway started in-process points $HERMES_HOME at its
 * temp folder for the hooks), so files cannot be trusted to undo all of it themselves: this runs around every file and
 * puts back the environment, the real timers and OpenTelemetry's no-op globals.
 */
// Taken when the file starts: vitest runs a setup file again before each file, ahead of the file's own code.
const environmentAtStart: Record<string, string | undefined> = { ...process.env };

afterAll(() => {
  for (const name of Object.keys(process.env)) if (!(name in environmentAtStart)) delete process.env[name];
  for (const [name, value] of Object.entries(environmentAtStart)) if (process.env[name] !== value) process.env[name] = value;
  if (vi.isFakeTimers()) vi.useRealTimers();
  trace.disable();
  context.disable();
  propagation.disable();
  diag.disable();
});
