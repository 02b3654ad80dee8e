/** How long a run that failed while the state database was away waits before it tries again (runtime/store-outage.ts). */
export const STORE_RECHECK_MS = 5_000;
