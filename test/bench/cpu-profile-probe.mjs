// Loaded into a benchmarked process with NODE_OPTIONS=--import (which refuses --cpu-prof itself): on SIGUSR2 it
// starts sampling (so start-up and warm-up stay out), and on exit writes $BENCH_CPU_PROFILE_DIR/<pid>.cpuprofile,
// for Chrome DevTools or test/bench/profile-inline.ts.
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector";

const dir = process.env.BENCH_CPU_PROFILE_DIR;
const session = new Session();
session.connect();
let started = false;
process.on("SIGUSR2", () => {
  if (started) return;
  started = true;
  session.post("Profiler.enable");
  session.post("Profiler.setSamplingInterval", { interval: 200 });
  session.post("Profiler.start");
});
process.on("exit", () => {
  if (!started) return;
  // An in-process inspector session answers synchronously, so the profile is written before the process ends.
  session.post("Profiler.stop", (error, result) => {
    if (!error && dir) writeFileSync(`${dir}/${process.pid}.cpuprofile`, JSON.stringify(result.profile));
  });
});
