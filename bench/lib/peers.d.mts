// Types of peers.mjs, for the test that imports it (test/unit/bench-stats.test.ts).
/** A target as `ratioTarget` (targets.mjs) makes it from the fields `peerTargets` gives. */
export interface PeerTargetFields {
  id: string
  name: string
  limit: number
  atMost: boolean
  short: (amount: number, reference: number) => string
}
export declare function peerTargets<T>(
  peers: { rounds: Record<string, Record<string, number>>[]; lanes: string[] } | undefined,
  ratioTarget: (
    rounds: Record<string, Record<string, number>>[],
    metric: string,
    a: string,
    b: string,
    fields: PeerTargetFields,
  ) => T,
): T[]
