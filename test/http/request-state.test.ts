/**
 * Sealed requestState over real HTTP (issue: MRTR with sealed requestState). Every way a retry can
 * present a state it should not — a changed character anywhere, a state from another tool, for
 * other arguments, for another principal, expired, under an unknown key id or a rotated-out key,
 * or replayed when single use — is answered -32602 with the same generic message, and the
 * handler does not run (the probe tool counts its runs).
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { rpc } from '../support/mcp.ts'
import { startAll, type WranglerServer } from '../support/wrangler.ts'

const ELICIT = { elicitation: {} }
const KEY_A = `a:${Buffer.alloc(32, 1).toString('base64')}`
const KEY_B = `b:${Buffer.alloc(32, 2).toString('base64')}`
let sequence = 0

function client(url: () => string) {
  const as = (principal: string) => ({ authorization: `Bearer ${principal}` })
  return {
    /** Round 1 of confirm_counted: input_required with a sealed state. */
    async begin(key: string, amount = 5, principal = 'alice') {
      const { message } = await rpc(
        fetch,
        url(),
        'tools/call',
        { name: 'confirm_counted', arguments: { key, amount } },
        { capabilities: ELICIT, headers: as(principal) },
      )
      expect(message.result?.resultType).toBe('input_required')
      expect(message.result?.inputRequests?.confirm?.method).toBe('elicitation/create')
      return message.result?.requestState as string
    },
    retry(key: string, requestState: string, options: { amount?: number; principal?: string; tool?: string } = {}) {
      return rpc(
        fetch,
        url(),
        'tools/call',
        {
          name: options.tool ?? 'confirm_counted',
          arguments: { key, amount: options.amount ?? 5 },
          inputResponses: { confirm: { action: 'accept', content: { ok: true } } },
          requestState,
        },
        { capabilities: ELICIT, headers: as(options.principal ?? 'alice') },
      )
    },
    async runs(key: string) {
      const { message } = await rpc(fetch, url(), 'tools/call', { name: 'read_runs', arguments: { key } })
      return Number(message.result?.content?.[0]?.text)
    },
  }
}

function expectInvalidState(message: { error?: { code: number; message: string } }) {
  expect(message.error).toEqual({ code: -32602, message: 'Invalid params: invalid requestState' })
}

describe('sealed requestState on the fixture Worker', () => {
  const fixture = client(() => inject('fixtureUrl'))

  it('completes when the retry echoes the state unchanged, then refuses a replay of it (single use)', async () => {
    const key = `ok-${sequence++}`
    const state = await fixture.begin(key)
    expect(state).toMatch(/^1\.test\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/)
    const first = await fixture.retry(key, state)
    expect(first.message.result?.content?.[0]?.text).toBe('transferred 5')
    expect(await fixture.runs(key)).toBe(2)
    const replay = await fixture.retry(key, state)
    expect(replay.status).toBe(200)
    expectInvalidState(replay.message)
    expect(await fixture.runs(key)).toBe(2)
  })

  it('refuses a state with any single character changed, and runs nothing', async () => {
    const key = `flip-${sequence++}`
    const state = await fixture.begin(key)
    const replacement = (char: string) => (char === 'A' ? 'B' : 'A')
    const results = []
    for (let at = 0; at < state.length; at++) {
      const tampered = `${state.slice(0, at)}${replacement(state[at] as string)}${state.slice(at + 1)}`
      results.push(fixture.retry(key, tampered).then(({ message }) => message))
      if (results.length % 16 === 0) await Promise.all(results.slice(-16))
    }
    for (const message of await Promise.all(results)) expectInvalidState(message)
    expect(results).toHaveLength(state.length)
    expect(await fixture.runs(key)).toBe(1)
  })

  it('refuses a state minted for another tool, other arguments or another principal', async () => {
    const key = `bind-${sequence++}`
    const state = await fixture.begin(key, 5, 'alice')
    const { message: other } = await rpc(
      fetch,
      inject('fixtureUrl'),
      'tools/call',
      { name: 'test_input_required_result_tampered_state', arguments: {} },
      { capabilities: ELICIT },
    )
    expectInvalidState((await fixture.retry(key, other.result?.requestState)).message)
    expectInvalidState((await fixture.retry(key, state, { amount: 500 })).message)
    expectInvalidState((await fixture.retry(key, state, { principal: 'mallory' })).message)
    expect(await fixture.runs(key)).toBe(1)
    // The untouched state is still good for its own call.
    expect((await fixture.retry(key, state)).message.result?.content?.[0]?.text).toBe('transferred 5')
  })

  it('refuses a state naming a key id that is not in the ring', async () => {
    const key = `kid-${sequence++}`
    const state = await fixture.begin(key)
    const [version, , payload, mac] = state.split('.')
    expectInvalidState((await fixture.retry(key, `${version}.nope.${payload}.${mac}`)).message)
    expect(await fixture.runs(key)).toBe(1)
  })
})

describe('key rotation and expiry (dedicated wrangler dev instances)', () => {
  let onlyA: WranglerServer
  let rotated: WranglerServer
  let onlyB: WranglerServer
  let shortLived: WranglerServer

  beforeAll(async () => {
    ;[onlyA, rotated, onlyB, shortLived] = (await startAll([
      { config: 'test/fixture/wrangler.jsonc', vars: { MCP_STATE_KEYS: KEY_A } },
      { config: 'test/fixture/wrangler.jsonc', vars: { MCP_STATE_KEYS: `${KEY_B},${KEY_A}` } },
      { config: 'test/fixture/wrangler.jsonc', vars: { MCP_STATE_KEYS: KEY_B } },
      { config: 'test/fixture/wrangler.jsonc', vars: { FIXTURE_STATE_TTL_MS: '1000' } },
    ])) as [WranglerServer, WranglerServer, WranglerServer, WranglerServer]
  }, 180_000)

  afterAll(async () => {
    await Promise.all([onlyA, rotated, onlyB, shortLived].map((server) => server?.stop()))
  })

  it('verifies a state sealed under key A after rotating to [B, A], and refuses it once A is dropped', async () => {
    const key = `rotate-${sequence++}`
    const state = await client(() => onlyA.url).begin(key)
    expect(state.split('.')[1]).toBe('a')
    const afterRotation = await client(() => rotated.url).retry(key, state)
    expect(afterRotation.message.result?.content?.[0]?.text).toBe('transferred 5')
    const afterDrop = await client(() => onlyB.url).retry(key, state)
    expectInvalidState(afterDrop.message)
    expect(await client(() => onlyB.url).runs(key)).toBe(0)
  })

  it('seals new states with the newest key of the ring', async () => {
    const state = await client(() => rotated.url).begin(`newest-${sequence++}`)
    expect(state.split('.')[1]).toBe('b')
  })

  it('refuses an expired state and runs nothing', async () => {
    const key = `expire-${sequence++}`
    const shortClient = client(() => shortLived.url)
    const state = await shortClient.begin(key)
    await new Promise((done) => setTimeout(done, 1200))
    expectInvalidState((await shortClient.retry(key, state)).message)
    expect(await shortClient.runs(key)).toBe(1)
  })
})
