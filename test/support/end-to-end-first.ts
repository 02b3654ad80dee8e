import path from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * Starts the end-to-end files (test/) before the unit files. They start processes and wait on locks and leases, so
 * they run longest; without timings from an earlier run (a clean clone) vitest would order by file size, and a short
 * file that waits out a lock could start last and keep the whole run waiting while the other workers are idle.
 */
export class EndToEndFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const endToEnd = sorted.filter((file) => isEndToEnd(file));
    return [...endToEnd, ...sorted.filter((file) => !isEndToEnd(file))];
  }
}

function isEndToEnd(file: TestSpecification): boolean {
  return path.relative(file.project.config.root, file.moduleId).split(path.sep)[0] === "test";
}
