/**
 * Every protocol era the fuzzer draws from: the stateless 2026-07-28 lane and the 2025-era lane
 * (an `initialize` handshake, a sealed Mcp-Session-Id, batches). The harness and the oracle are
 * the same for both.
 */
import fc from 'fast-check'
import type { Era, FuzzCase, FuzzContext } from './cases.ts'
import { era2025 } from './era-2025.ts'
import { era2026 } from './era-2026.ts'

export const ERAS: readonly Era[] = [era2026, era2025]

/** A case from any era, each era equally likely. */
export function anyCase(context: FuzzContext): fc.Arbitrary<FuzzCase> {
  return fc.oneof(...ERAS.map((era) => era.cases(context)))
}

/** The request of a case, aimed at `url`. */
export function toRequest(url: string, fuzzCase: FuzzCase): Request {
  return new Request(url, {
    method: fuzzCase.method,
    headers: { host: new URL(url).host, ...fuzzCase.headers },
    body: fuzzCase.method === 'GET' || fuzzCase.method === 'HEAD' ? undefined : fuzzCase.body,
  })
}
