import type { LookupAddress } from "node:dns";
import type { Agent } from "undici";
import type { FetchTargetPolicy } from "./fetch-target.js";
import { isPublicAddress } from "./ip-ranges.js";

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * An HTTP dispatcher whose connections re-resolve the host and refuse private addresses at connect time. Checking the
 * URL before the request is not enough: a DNS answer can change between the check and the connection (rebinding),
 * so the address actually dialled is the one that must be judged.
 *
 * undici is loaded at the first fetch, not with the tool: most gateways never fetch a page, and this copy of undici
 * (the one Node's fetch accepts a dispatcher from) costs an idle process 2–4 MiB.
 */
export async function guardedDispatcher(policy: FetchTargetPolicy): Promise<Agent> {
  const { Agent } = await import("undici");
  const lookup = (hostname: string, options: { all?: boolean } | undefined, callback: LookupCallback): void => {
    policy
      .lookup(hostname)
      .then((addresses) => {
        if (addresses.length === 0) throw refusal(`could not resolve host ${hostname}`);
        const blocked = policy.allowPrivateNetwork ? undefined : addresses.find((address) => !isPublicAddress(address));
        if (blocked !== undefined) throw refusal(`refused: ${hostname} resolved to the private or reserved address ${blocked}`);
        const entries = addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
        const first = entries[0] as LookupAddress;
        if (options?.all) callback(null, entries);
        else callback(null, first.address, first.family);
      })
      .catch((error: unknown) => callback(error instanceof Error ? error : refusal(String(error)), ""));
  };
  return new Agent({ connect: { lookup } });
}

function refusal(message: string): NodeJS.ErrnoException {
  const error: NodeJS.ErrnoException = new Error(message);
  error.code = "EHOSTUNREACH";
  return error;
}
