const DISCORD_EPOCH = 1_420_070_400_000n;

/**
 * Real-looking snowflakes (timestamp in the high bits): discord.js derives creation times from them, and its mention
 * parsing only accepts 17–19 digit ids. Strictly increasing, so ids also sort in creation order.
 */
export function snowflakeGenerator(now: () => number = Date.now): () => string {
  let last = 0n;
  return () => {
    const candidate = (BigInt(now()) - DISCORD_EPOCH) << 22n;
    last = candidate > last ? candidate : last + 1n;
    return last.toString();
  };
}
