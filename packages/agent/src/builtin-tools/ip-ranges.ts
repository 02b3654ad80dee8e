/**
 * Classifies IP addresses for the web tools' SSRF guard. The rule is an allow-list at heart: an address is public
 * only when it is well-formed and lies in no special-purpose block, and anything we cannot parse counts as not public.
 */

type Ipv4Block = readonly [base: number, prefixLength: number];

// IANA IPv4 special-purpose registry, plus multicast and the reserved 240/4 (which also covers 255.255.255.255).
const NON_PUBLIC_IPV4: readonly Ipv4Block[] = [
  [ipv4(0, 0, 0, 0), 8], // "this network", includes the unspecified address
  [ipv4(10, 0, 0, 0), 8], // private
  [ipv4(100, 64, 0, 0), 10], // carrier-grade NAT
  [ipv4(127, 0, 0, 0), 8], // loopback
  [ipv4(169, 254, 0, 0), 16], // link-local, includes cloud metadata endpoints
  [ipv4(172, 16, 0, 0), 12], // private
  [ipv4(192, 0, 0, 0), 24], // IETF protocol assignments
  [ipv4(192, 0, 2, 0), 24], // documentation (TEST-NET-1)
  [ipv4(192, 88, 99, 0), 24], // deprecated 6to4 relay anycast
  [ipv4(192, 168, 0, 0), 16], // private
  [ipv4(198, 18, 0, 0), 15], // benchmarking
  [ipv4(198, 51, 100, 0), 24], // documentation (TEST-NET-2)
  [ipv4(203, 0, 113, 0), 24], // documentation (TEST-NET-3)
  [ipv4(224, 0, 0, 0), 4], // multicast
  [ipv4(240, 0, 0, 0), 4], // reserved, includes limited broadcast
];

function ipv4(a: number, b: number, c: number, d: number): number {
  return ((a << 24) >>> 0) + (b << 16) + (c << 8) + d;
}

/** True when `ip` (IPv4 dotted quad or IPv6, brackets and zone allowed) is a globally routable unicast address. */
export function isPublicAddress(ip: string): boolean {
  const bare = ip.startsWith("[") && ip.endsWith("]") ? ip.slice(1, -1) : ip;
  const v4 = parseIpv4(bare);
  if (v4 !== undefined) return isPublicIpv4(v4);
  const v6 = parseIpv6(bare);
  if (v6 !== undefined) return isPublicIpv6(v6);
  return false;
}

function isPublicIpv4(address: number): boolean {
  return !NON_PUBLIC_IPV4.some(([base, prefix]) => inIpv4Block(address, base, prefix));
}

function inIpv4Block(address: number, base: number, prefix: number): boolean {
  const mask = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
  return ((address & mask) >>> 0) === ((base & mask) >>> 0);
}

function isPublicIpv6(groups: readonly number[]): boolean {
  const g = (index: number): number => groups[index] ?? 0;
  const embeddedV4 = (high: number, low: number): number => ((g(high) << 16) >>> 0) + g(low);
  const zeroUpTo = (end: number): boolean => groups.slice(0, end).every((group) => group === 0);

  // Forms that carry an IPv4 address are judged by that address, so ::ffff:127.0.0.1 cannot smuggle loopback through.
  if (zeroUpTo(5) && g(5) === 0xffff) return isPublicIpv4(embeddedV4(6, 7)); // IPv4-mapped
  if (zeroUpTo(4) && g(4) === 0xffff && g(5) === 0) return isPublicIpv4(embeddedV4(6, 7)); // IPv4-translated
  if (g(0) === 0x64 && g(1) === 0xff9b && groups.slice(2, 6).every((group) => group === 0)) {
    return isPublicIpv4(embeddedV4(6, 7)); // NAT64 well-known prefix
  }
  if (g(0) === 0x2002) return isPublicIpv4(embeddedV4(1, 2)); // 6to4

  // Only 2000::/3 is allocated as global unicast; everything else (::, ::1, ::/96, fc00::/7, fe80::/10,
  // fec0::/10, ff00::/8, 64:ff9b:1::/48, 100::/64, ...) is special-purpose.
  if ((g(0) & 0xe000) !== 0x2000) return false;
  if (g(0) === 0x2001 && g(1) < 0x0200) return false; // 2001::/23 IETF assignments, includes Teredo and ORCHID
  if (g(0) === 0x2001 && g(1) === 0x0db8) return false; // documentation
  if (g(0) === 0x3fff && (g(1) & 0xf000) === 0) return false; // 3fff::/20 documentation
  return true;
}

/** Strict dotted-quad parse; other spellings (octal, hex, short forms) must be normalised by the caller first. */
function parseIpv4(text: string): number | undefined {
  const parts = text.split(".");
  if (parts.length !== 4) return undefined;
  let value = 0;
  for (const part of parts) {
    if (!/^(0|[1-9]\d{0,2})$/.test(part)) return undefined;
    const octet = Number(part);
    if (octet > 255) return undefined;
    value = value * 256 + octet;
  }
  return value;
}

/** Parses an IPv6 address into eight 16-bit groups; supports `::`, a trailing dotted quad and a `%zone` suffix. */
function parseIpv6(text: string): number[] | undefined {
  const address = text.includes("%") ? text.slice(0, text.indexOf("%")) : text;
  if (!address.includes(":")) return undefined;

  const halves = address.split("::");
  if (halves.length > 2) return undefined;
  const head = parseIpv6Groups(halves[0] ?? "", halves.length === 1);
  const tail = halves.length === 2 ? parseIpv6Groups(halves[1] ?? "", true) : [];
  if (head === undefined || tail === undefined) return undefined;

  if (halves.length === 1) return head.length === 8 ? head : undefined;
  const missing = 8 - head.length - tail.length;
  if (missing < 1) return undefined;
  return [...head, ...new Array<number>(missing).fill(0), ...tail];
}

function parseIpv6Groups(section: string, mayEndWithIpv4: boolean): number[] | undefined {
  if (section === "") return [];
  const pieces = section.split(":");
  const groups: number[] = [];
  for (const [index, piece] of pieces.entries()) {
    const isLast = index === pieces.length - 1;
    if (isLast && mayEndWithIpv4 && piece.includes(".")) {
      const v4 = parseIpv4(piece);
      if (v4 === undefined) return undefined;
      groups.push(v4 >>> 16, v4 & 0xffff);
      continue;
    }
    if (!/^[0-9a-fA-F]{1,4}$/.test(piece)) return undefined;
    groups.push(parseInt(piece, 16));
  }
  return groups;
}
