import type { ApprovedUserRecord, NewPairingRequest, PairingRequestRecord, Store } from "@hermes/store";

/** The storage the pairing flow needs: the store's pairing repository (an in-memory one stands in for tests). */
export type PairingStoreLike = Store["pairing"];

export type { ApprovedUserRecord, NewPairingRequest, PairingRequestRecord };
