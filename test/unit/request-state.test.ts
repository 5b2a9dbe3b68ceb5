import { describe, expect, it } from 'vitest'
import {
  canonicalJson,
  createKeyRing,
  digestArguments,
  MAX_STATE_CHARS,
  RequestStateCodec,
} from '../../packages/mcp-edge/src/server/request-state.ts'
import type { RequestStateOptions, StateBinding, StateBody } from '../../packages/mcp-edge/src/server/request-state.ts'
import { configError, rejected } from './support.ts'

const key = (fill: number, length = 32) => Buffer.alloc(length, fill).toString('base64')
const KEY_A = `ka:${key(1)}`
const KEY_B = `kb:${key(2)}`
const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'

const binding: StateBinding = {
  method: 'tools/call',
  target: 'book_flight',
  argsDigest: 'digest-1',
  principal: 'alice',
  server: 'travel https://a.example/mcp',
}
const body: StateBody = {
  round: 2,
  answers: { confirm: { action: 'accept', content: { ok: true } } },
  pending: ['pay'],
  state: { step: 'pay' },
}

function codec(secret: string, options: RequestStateOptions = {}): { codec: RequestStateCodec; reasons: string[] } {
  const reasons: string[] = []
  return {
    codec: new RequestStateCodec(createKeyRing(secret), { onReject: (reason) => reasons.push(reason), ...options }),
    reasons,
  }
}

async function expectRejected(promise: Promise<unknown>): Promise<void> {
  const error = await rejected(promise)
  expect(error.kind).toBe('invalidParams')
  expect(error.code).toBe(-32602)
  // Generic on purpose: the reason goes to onReject only.
  expect(error.message).toBe('Invalid params: invalid requestState')
  expect(error.data).toBeUndefined()
}

/** `token` with the character at `index` replaced by a different base64url character. */
function mutate(token: string, index: number): string {
  const current = token[index]
  const replacement = [...BASE64URL].find((char) => char !== current) as string
  return token.slice(0, index) + replacement + token.slice(index + 1)
}

describe('RequestStateCodec (HMAC)', () => {
  it('round-trips a state and reports its nonce and expiry', async () => {
    const { codec: states } = codec(KEY_A, { now: () => 1_000_000, ttlMs: 30_000 })
    const token = await states.seal(binding, body)
    expect(token).toMatch(/^1\.ka\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/)
    const opened = await states.open(token, binding)
    expect(opened).toEqual({ ...body, nonce: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/), expiresAt: 1_030_000 })
  })

  it('mints a fresh nonce per seal', async () => {
    const { codec: states } = codec(KEY_A)
    const [first, second] = await Promise.all([states.seal(binding, body), states.seal(binding, body)])
    expect(first).not.toBe(second)
    expect((await states.open(first, binding)).nonce).not.toBe((await states.open(second, binding)).nonce)
  })

  it('rejects every single-character change of a sealed blob', async () => {
    const { codec: states, reasons } = codec(KEY_A)
    const token = await states.seal(binding, body)
    for (let index = 0; index < token.length; index++) {
      const changed = mutate(token, index)
      expect(changed).not.toBe(token)
      await expectRejected(states.open(changed, binding))
    }
    expect(reasons).toHaveLength(token.length)
    // Reasons vary (bad MAC, malformed, unknown key…) and none reaches the client.
    expect(new Set(reasons).size).toBeGreaterThan(1)
    expect(await states.open(token, binding)).toMatchObject(body)
  })

  it('rejects truncated, extended and re-assembled blobs', async () => {
    const { codec: states } = codec(KEY_A)
    const token = await states.seal(binding, body)
    const other = await states.seal({ ...binding, target: 'other' }, body)
    const [version, kid, payload] = token.split('.')
    const [, , , otherMac] = other.split('.')
    for (const bad of [
      token.slice(0, -1),
      `${token}A`,
      `${token}.x`,
      `${version}.${kid}.${payload}.${otherMac}`,
      `${token.slice(0, -43)}`,
    ]) {
      await expectRejected(states.open(bad, binding))
    }
  })

  it('rejects non-strings, oversized and malformed tokens, naming the reason to onReject', async () => {
    const { codec: states, reasons } = codec(KEY_A)
    await expectRejected(states.open(123, binding))
    await expectRejected(states.open(null, binding))
    await expectRejected(states.open('x'.repeat(MAX_STATE_CHARS + 1), binding))
    await expectRejected(states.open('a.b.c', binding))
    await expectRejected(states.open('9.ka.AAAA.AAAA', binding))
    expect(reasons).toEqual(['not a string', 'not a string', 'too large', 'malformed', 'unknown version "9"'])
  })

  it('rejects a well-signed payload of the wrong shape', async () => {
    // Sign something that is not a state, with the real key, by reusing the codec's own format.
    const secret = Buffer.alloc(32, 1)
    const hmac = await crypto.subtle.importKey('raw', secret, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign'])
    const signed = `1.ka.${Buffer.from(JSON.stringify({ hello: 'world' })).toString('base64url')}`
    const mac = Buffer.from(await crypto.subtle.sign('HMAC', hmac, new TextEncoder().encode(signed))).toString('base64url')
    const { codec: states, reasons } = codec(KEY_A)
    await expectRejected(states.open(`${signed}.${mac}`, binding))
    expect(reasons).toEqual(['payload has the wrong shape'])
  })

  it('rejects a state minted by another server sharing the keys, but not one minted by another version', async () => {
    const { codec: states, reasons } = codec(KEY_A)
    const token = await states.seal(binding, body)
    await expectRejected(states.open(token, { ...binding, server: 'travel https://b.example/mcp' }))
    await expectRejected(states.open(token, { ...binding, server: 'hotels https://a.example/mcp' }))
    expect(reasons).toEqual([
      'minted by server travel https://a.example/mcp, used on travel https://b.example/mcp',
      'minted by server travel https://a.example/mcp, used on hotels https://a.example/mcp',
    ])
    // The version is not part of the binding: a deploy of a new version keeps states in flight valid.
    expect(await states.open(token, binding)).toMatchObject(body)
  })

  it('rejects a state presented for another method, target, arguments or principal', async () => {
    const { codec: states, reasons } = codec(KEY_A)
    const token = await states.seal(binding, body)
    await expectRejected(states.open(token, { ...binding, method: 'prompts/get' }))
    await expectRejected(states.open(token, { ...binding, target: 'cancel_flight' }))
    await expectRejected(states.open(token, { ...binding, argsDigest: 'digest-2' }))
    await expectRejected(states.open(token, { ...binding, principal: 'mallory' }))
    await expectRejected(states.open(token, { ...binding, principal: null }))
    expect(reasons).toEqual([
      'minted for method tools/call, used on prompts/get',
      'minted for target book_flight, used on cancel_flight',
      'minted for different arguments',
      'minted for a different principal',
      'minted for a different principal',
    ])
  })

  it('binds an anonymous state to no principal', async () => {
    const { codec: states } = codec(KEY_A)
    const anonymous = await states.seal({ ...binding, principal: null }, body)
    expect(await states.open(anonymous, { ...binding, principal: null })).toMatchObject(body)
    await expectRejected(states.open(anonymous, binding))
  })

  it('expires after ttlMs, exactly at the boundary', async () => {
    let now = 10_000
    const { codec: states, reasons } = codec(KEY_A, { now: () => now, ttlMs: 5_000 })
    const token = await states.seal(binding, body)
    now = 14_999
    expect(await states.open(token, binding)).toMatchObject(body)
    now = 15_000
    await expectRejected(states.open(token, binding))
    now = 20_000
    await expectRejected(states.open(token, binding))
    expect(reasons).toEqual(['expired 0 ms ago', 'expired 5000 ms ago'])
  })

  it('rejects a state issued more than a minute in the future (clock skew allowance)', async () => {
    let now = 1_000_000
    const { codec: states, reasons } = codec(KEY_A, { now: () => now, ttlMs: 600_000 })
    const token = await states.seal(binding, body)
    now = 1_000_000 - 60_000
    expect(await states.open(token, binding)).toMatchObject(body)
    now = 1_000_000 - 60_001
    await expectRejected(states.open(token, binding))
    expect(reasons).toEqual(['issued in the future'])
  })

  it('rejects an unknown key id', async () => {
    const token = await codec(KEY_A).codec.seal(binding, body)
    const { codec: other, reasons } = codec(KEY_B)
    await expectRejected(other.open(token, binding))
    expect(reasons).toEqual(['unknown key id "ka"'])
  })

  it('rejects a state sealed with a different key under the same id', async () => {
    const token = await codec(`ka:${key(9)}`).codec.seal(binding, body)
    const { codec: states, reasons } = codec(KEY_A)
    await expectRejected(states.open(token, binding))
    expect(reasons).toEqual(['bad MAC'])
  })

  it('rotates keys: seal with the newest, verify with any key still in the ring', async () => {
    const oldToken = await codec(KEY_A).codec.seal(binding, body)
    const { codec: rotated } = codec(`${KEY_B},${KEY_A}`)
    expect(await rotated.open(oldToken, binding)).toMatchObject(body)
    const newToken = await rotated.seal(binding, body)
    expect(newToken.startsWith('1.kb.')).toBe(true)
    const { codec: retired, reasons } = codec(KEY_B)
    expect(await retired.open(newToken, binding)).toMatchObject(body)
    await expectRejected(retired.open(oldToken, binding))
    expect(reasons).toEqual(['unknown key id "ka"'])
  })
})

describe('RequestStateCodec (AES-GCM)', () => {
  it('round-trips, and hides the payload', async () => {
    const { codec: states } = codec(KEY_A, { encrypt: true })
    const token = await states.seal(binding, body)
    expect(token).toMatch(/^2\.ka\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+$/)
    const visible = token
      .split('.')
      .slice(2)
      .map((part) => Buffer.from(part, 'base64url').toString('latin1'))
      .join('')
    expect(visible).not.toContain('book_flight')
    expect(visible).not.toContain('pay')
    expect(await states.open(token, binding)).toMatchObject(body)
  })

  it('rejects every single-character change', async () => {
    const { codec: states, reasons } = codec(KEY_A, { encrypt: true })
    const token = await states.seal(binding, body)
    for (let index = 0; index < token.length; index++) await expectRejected(states.open(mutate(token, index), binding))
    expect(reasons).toHaveLength(token.length)
    expect(reasons).toContain('failed AES-GCM authentication')
  })

  it('still checks the binding after decryption', async () => {
    const { codec: states, reasons } = codec(KEY_A, { encrypt: true })
    const token = await states.seal(binding, body)
    await expectRejected(states.open(token, { ...binding, target: 'other' }))
    expect(reasons).toEqual(['minted for target book_flight, used on other'])
  })

  it('rejects an AES blob relabelled as an HMAC one, while the same ring opens either format', async () => {
    const { codec: aes } = codec(KEY_A, { encrypt: true })
    const { codec: hmac } = codec(KEY_A)
    const sealed = await aes.seal(binding, body)
    // Relabelled as an HMAC blob: the ciphertext is not a valid MAC.
    await expectRejected(hmac.open(`1.${sealed.slice(2)}`, binding))
    // The same ring opens either format.
    expect(await hmac.open(sealed, binding)).toMatchObject(body)
  })
})

describe('createKeyRing', () => {
  const HINT = /wrangler secret put MCP_STATE_KEYS/

  it('parses a ring, newest first, from base64 or base64url, separated by commas or whitespace', async () => {
    const url = `kc:${Buffer.alloc(32, 0xfb).toString('base64url')}`
    const ring = createKeyRing(`${KEY_B}, ${KEY_A}\n${url}`)
    expect(ring.keys.map((entry) => entry.kid)).toEqual(['kb', 'ka', 'kc'])
    const sealed = await new RequestStateCodec(ring).seal(binding, body)
    expect(sealed.startsWith('1.kb.')).toBe(true)
  })

  it('explains how to set the secret when it is missing or empty', () => {
    for (const secret of [undefined, '', '   ']) {
      const error = configError(() => createKeyRing(secret))
      expect(error.message).toMatch(/^MCP_STATE_KEYS is not set\. /)
      expect(error.message).toMatch(HINT)
    }
    expect(configError(() => createKeyRing(' , ,')).message).toMatch(/^MCP_STATE_KEYS holds no keys\. .*wrangler secret put/)
  })

  it('refuses malformed entries', () => {
    for (const secret of ['no-colon-here', `:${key(1)}`, `bad kid!:${key(1)}`, `${'k'.repeat(33)}:${key(1)}`]) {
      const error = configError(() => createKeyRing(secret))
      expect(error.message).toMatch(/^MCP_STATE_KEYS: each key must look like "<kid>:<base64>"\. /)
      expect(error.message).toMatch(HINT)
    }
    const error = configError(() => createKeyRing('k1:not*base64'))
    expect(error.message).toMatch(/^MCP_STATE_KEYS: key "k1" is not valid base64\. .*wrangler secret put/)
  })

  it('refuses keys shorter than 32 bytes, saying how long they are', () => {
    const error = configError(() => createKeyRing(`k1:${key(1, 31)}`))
    expect(error.message).toMatch(/^MCP_STATE_KEYS: key "k1" has 31 bytes; at least 32 are required\. /)
    expect(error.message).toMatch(HINT)
    expect(() => createKeyRing(`k1:${key(1, 32)}`)).not.toThrow()
  })

  it('refuses a key id used twice', () => {
    const { message } = configError(() => createKeyRing(`${KEY_A},ka:${key(3)}`))
    expect(message).toMatch(/^MCP_STATE_KEYS: key id "ka" appears twice\. /)
    expect(message).toContain('wrangler secret put MCP_STATE_KEYS')
  })

  it('names the secret it was given', () => {
    expect(configError(() => createKeyRing(undefined, 'MY_KEYS')).message).toMatch(/^MY_KEYS is not set\. /)
  })

  it('imports a secret’s keys once per isolate: the same secret gives the same ring, a bad one throws every time', async () => {
    const secret = `kd:${key(9)}`
    const ring = createKeyRing(secret)
    expect(createKeyRing(secret)).toBe(ring)
    expect(createKeyRing(`${secret},${KEY_A}`)).not.toBe(ring)
    for (let i = 0; i < 2; i++) expect(configError(() => createKeyRing(`kd:${key(9, 8)}`)).message).toMatch(/has 8 bytes/)
    const token = await new RequestStateCodec(ring, { encrypt: true }).seal(binding, body)
    expect((await new RequestStateCodec(createKeyRing(secret), { encrypt: true }).open(token, binding)).round).toBe(body.round)
  })
})

describe('canonicalJson and digestArguments', () => {
  it('sorts keys at every depth and drops undefined members', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { f: 1, e: 2 }], c: 'x' }, u: undefined })).toBe(
      '{"a":{"c":"x","d":[3,{"e":2,"f":1}]},"b":1}',
    )
    expect(canonicalJson([undefined, null, 'é"'])).toBe('[null,null,"é\\""]')
    expect(canonicalJson(undefined)).toBe('null')
  })

  it('digests equal arguments equally, whatever their key order', async () => {
    const a = await digestArguments({ city: 'Paris', days: 3, options: { units: 'metric', lang: 'fr' } })
    const b = await digestArguments({ options: { lang: 'fr', units: 'metric' }, days: 3, city: 'Paris' })
    expect(a).toBe(b)
    expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(a).toBe(
      Buffer.from(
        await crypto.subtle.digest(
          'SHA-256',
          new TextEncoder().encode(canonicalJson({ city: 'Paris', days: 3, options: { lang: 'fr', units: 'metric' } })),
        ),
      ).toString('base64url'),
    )
  })

  it('digests different arguments differently, and no arguments like {}', async () => {
    const base = await digestArguments({ city: 'Paris', days: 3 })
    expect(await digestArguments({ city: 'Paris', days: 4 })).not.toBe(base)
    expect(await digestArguments({ city: 'Paris', days: '3' })).not.toBe(base)
    expect(await digestArguments({ city: 'Paris' })).not.toBe(base)
    expect(await digestArguments(undefined)).toBe(await digestArguments({}))
  })
})
