/**
 * Polls `check` until it holds, failing with "timed out waiting for <what>" after `timeoutMs`. The bound only decides
 * how long a failing test takes to say so; no test asserts on time.
 */
export async function waitUntil(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 45_000, intervalMs = 25): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; !(await check()); ) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
