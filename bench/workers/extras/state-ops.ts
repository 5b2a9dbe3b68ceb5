/**
 * The sealed-state workload, shared by the Node measurement (bench/lib/state.mjs) and the extras
 * Worker's /bench/state endpoint (timed from outside, since workerd's clocks stand still while
 * code runs). A representative multi-round-trip state: round 2 of a confirmation, bound to a tool
 * call of principal "local".
 */
import { createKeyRing, RequestStateCodec } from 'mcp-edge'
import type { StateBinding, StateBody } from 'mcp-edge'

export type StateMode = 'hmac' | 'aes'
export type StateOp = 'seal' | 'open'

const BINDING: StateBinding = {
  method: 'tools/call',
  target: 'delete_record',
  argsDigest: 'n4bQgYhMfWWaL-qgxVrQFaO_TxsrC4Is0V1sFbDwCgg',
  principal: 'local',
  server: 'mcp-edge-template /mcp',
}
const BODY: StateBody = {
  round: 2,
  answers: { confirm: { action: 'accept', content: { confirm: true, reason: 'cleanup' } } },
  state: { step: 'confirm' },
}

/** A codec with the given key ring and mode, and one token sealed by it (what `open` verifies). */
export async function prepareState(secret: string, mode: StateMode) {
  const codec = new RequestStateCodec(createKeyRing(secret), { encrypt: mode === 'aes' })
  const token = await codec.seal(BINDING, BODY)
  await codec.open(token, BINDING)
  return { codec, token }
}

/** Run `op` `count` times, one after the other. */
export async function runStateOps(state: Awaited<ReturnType<typeof prepareState>>, op: StateOp, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    if (op === 'seal') await state.codec.seal(BINDING, BODY)
    else await state.codec.open(state.token, BINDING)
  }
}
