import { replayingCheckpoints, type Logger, type ToolCheckpoints } from "@hermes/agent";
import type { ClaimedInbound, Store } from "@hermes/store";

/**
 * The agent's checkpoint port for one inbound message's run, backed by the store. A run taken up again (after a
 * worker crash, a lost lease or a restart) is the same inbound message and replays what was saved; /retry submits the
 * text again as a new inbound message, so its run starts with no checkpoints and everything runs afresh. The rows (and
 * the recorded model replies) are dropped when the run completes (store.completeRun).
 */
export async function runCheckpoints(store: Store, run: Pick<ClaimedInbound, "id" | "resumed">, logger: Logger): Promise<ToolCheckpoints> {
  const inboundId = run.id;
  // A message's first run finds nothing saved (see ClaimedInbound.resumed), so only a run taken up again looks.
  const saved = run.resumed ? await store.toolCheckpoints.forRun(inboundId) : [];
  const steps = run.resumed ? await store.toolCheckpoints.stepsForRun(inboundId) : [];
  if (saved.length > 0 || steps.length > 0) {
    logger.info("run taken up again; recorded model replies and finished tool calls will be replayed, not run again", { checkpoints: saved.length, steps: steps.length });
  }
  return replayingCheckpoints(
    saved,
    async (checkpoint) => {
      await store.toolCheckpoints.record({ inboundId, ...checkpoint });
    },
    {
      saved: steps,
      persist: async (step) => {
        await store.toolCheckpoints.recordStep({ inboundId, ...step });
      },
    },
  );
}
