/**
 * Sealed requestState cost (mcp-edge only), µs per seal and per open, HMAC and AES-GCM:
 * - in Node, with its WebCrypto, timed in-process over many iterations;
 * - inside workerd, through the extras Worker's /bench/state endpoint. workerd's clocks stand
 *   still while code runs, so the endpoint is timed from here: (N ops) − (0 ops), wall time
 *   and workerd CPU, divided by N.
 */
import { importTs } from './bundle.mjs'
import { TEST_STATE_KEYS } from './keys.mjs'
import { cpuMs } from './proc.mjs'
import { median } from './stats.mjs'

const CASES = [
  ['hmac', 'seal'],
  ['hmac', 'open'],
  ['aes', 'seal'],
  ['aes', 'open'],
]

export async function stateInNode(iterations) {
  const { prepareState, runStateOps } = await importTs('bench/workers/extras/state-ops.ts', 'state-ops')
  const out = {}
  for (const [mode, op] of CASES) {
    const state = await prepareState(TEST_STATE_KEYS, mode)
    await runStateOps(state, op, Math.ceil(iterations / 10)) // warm-up
    const started = performance.now()
    await runStateOps(state, op, iterations)
    out[`${mode}.${op}`] = { usPerOp: ((performance.now() - started) * 1000) / iterations, iterations }
  }
  return out
}

async function timedRequest(target, query) {
  const cpuBefore = cpuMs(target.pid)
  const started = performance.now()
  const response = await fetch(`${target.origin}/bench/state?${query}`)
  await response.text()
  if (response.status !== 200) throw new Error(`/bench/state?${query} answered ${response.status}`)
  return { ms: performance.now() - started, cpuMs: cpuMs(target.pid) - cpuBefore }
}

export async function stateInWorkerd(target, iterations, repeats) {
  const out = {}
  for (const [mode, op] of CASES) {
    await timedRequest(target, `mode=${mode}&op=${op}&n=${Math.ceil(iterations / 10)}`) // warm-up
    const wall = []
    const cpu = []
    for (let i = 0; i < repeats; i++) {
      const empty = await timedRequest(target, `mode=${mode}&op=${op}&n=0`)
      const full = await timedRequest(target, `mode=${mode}&op=${op}&n=${iterations}`)
      wall.push(((full.ms - empty.ms) * 1000) / iterations)
      cpu.push(((full.cpuMs - empty.cpuMs) * 1000) / iterations)
    }
    out[`${mode}.${op}`] = { usPerOp: median(wall), cpuUsPerOp: median(cpu), iterations, repeats }
  }
  return out
}
