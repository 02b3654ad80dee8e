import type { DeliveryRecordLike } from "./delivery-types.js";

/** Deliveries grouped by chat, each group in the order given (oldest first), groups in order of first appearance. */
export function groupByChat(deliveries: readonly DeliveryRecordLike[]): DeliveryRecordLike[][] {
  const lanes = new Map<string, DeliveryRecordLike[]>();
  for (const delivery of deliveries) {
    const key = `${delivery.platform}\u0000${delivery.chatId}`;
    const lane = lanes.get(key);
    if (lane) lane.push(delivery);
    else lanes.set(key, [delivery]);
  }
  return [...lanes.values()];
}

/** Runs `work` over `items` with at most `concurrency` running at once. */
export async function forEachConcurrently<T>(items: readonly T[], concurrency: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next];
      next += 1;
      if (item !== undefined) await work(item);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, items.length)) }, worker));
}
