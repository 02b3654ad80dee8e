import { isIP } from "node:net";
import { lookup } from "node:dns/promises";
import { isPublicAddress } from "./ip-ranges.js";

/** Resolves a host name to every address it may connect to. */
export type LookupHost = (hostname: string) => Promise<string[]>;

export type FetchTargetCheck = { ok: true; url: URL } | { ok: false; error: string };

export interface FetchTargetPolicy {
  allowPrivateNetwork: boolean;
  lookup: LookupHost;
}

export const lookupAllAddresses: LookupHost = async (hostname) =>
  (await lookup(hostname, { all: true })).map((entry) => entry.address);

/**
 * Decides whether a URL may be requested. Parsing through `new URL` first matters: it turns spellings such as
 * `0x7f.1` or `2130706433` into the dotted quad they stand for, so they are judged like any other literal.
 */
export async function checkFetchTarget(target: string | URL, policy: FetchTargetPolicy): Promise<FetchTargetCheck> {
  let url: URL;
  try {
    url = typeof target === "string" ? new URL(target) : target;
  } catch {
    return { ok: false, error: `invalid URL: ${JSON.stringify(String(target))}` };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return { ok: false, error: `only http and https URLs can be fetched (got ${url.protocol})` };
  }
  if (url.username !== "" || url.password !== "") {
    return { ok: false, error: "URLs with embedded credentials are refused" };
  }
  if (policy.allowPrivateNetwork) return { ok: true, url };

  const host = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
  if (isIP(host) !== 0) {
    return isPublicAddress(host) ? { ok: true, url } : { ok: false, error: refusal(host) };
  }

  const name = host.toLowerCase().replace(/\.$/, "");
  // RFC 6761: these names always mean this machine, whatever a resolver might claim.
  if (name === "localhost" || name.endsWith(".localhost")) return { ok: false, error: refusal(host) };

  let addresses: string[];
  try {
    addresses = await policy.lookup(name);
  } catch {
    return { ok: false, error: `could not resolve host ${host}` };
  }
  if (addresses.length === 0) return { ok: false, error: `could not resolve host ${host}` };
  // One private answer is enough to refuse: the connection may pick any of them.
  const privateAddress = addresses.find((address) => !isPublicAddress(address));
  if (privateAddress !== undefined) {
    return { ok: false, error: `${refusal(host)} (it resolves to ${privateAddress})` };
  }
  return { ok: true, url };
}

function refusal(host: string): string {
  return `refused: ${host} is a private, local or reserved network address`;
}
