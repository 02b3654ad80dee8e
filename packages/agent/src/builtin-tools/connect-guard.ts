import type { LookupAddress } from "node:dns";
import { Agent } from "undici";
import type { FetchTargetPolicy } from "./fetch-target.js";
import { isPublicAddress } from "./ip-ranges.js";

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * An HTTP dispatcher whose connections re-resolve the host and refuse private addresses at connect time. Checking the
 * URL before the request is not enough: a DNS answer can change between the check and the connection (rebinding),
 * so the address actually dialled is the one that must be judged.
 */
export function guardedDispatcher(policy: FetchTargetPolicy): Agent {
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
