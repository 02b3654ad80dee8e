// Loaded into a benchmarked process with NODE_OPTIONS=--import: measures how long its event loop is held up. On
// SIGUSR2 it writes the figures since the last signal, and the process's memory use now, to $BENCH_LOOP_DELAY_FILE
// and starts a fresh measurement.
import { writeFileSync } from "node:fs";
import { monitorEventLoopDelay } from "node:perf_hooks";

const file = process.env.BENCH_LOOP_DELAY_FILE;
const histogram = monitorEventLoopDelay({ resolution: 5 });
histogram.enable();
process.on("SIGUSR2", () => {
  const ms = (ns) => ns / 1e6;
  const figures = { p50: ms(histogram.percentile(50)), p99: ms(histogram.percentile(99)), max: ms(histogram.max), count: histogram.count, memory: process.memoryUsage() };
  if (file) writeFileSync(file, JSON.stringify(figures));
  histogram.reset();
});
