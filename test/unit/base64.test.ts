import { describe, expect, it } from 'vitest'
import { decodeBase64, decodeBase64Url, encodeBase64, encodeBase64Url } from '../../packages/mcp-edge/src/protocol/base64.ts'

const utf8 = new TextEncoder()
const text = (bytes: Uint8Array | undefined) => (bytes === undefined ? undefined : new TextDecoder().decode(bytes))

/** Deterministic bytes (no Math.random, so a failure reproduces). */
function bytesOf(length: number, seed = 7): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(length)
  let x = seed
  for (let i = 0; i < length; i++) {
    x = (x * 1103515245 + 12345) >>> 0
    out[i] = x >>> 24
  }
  return out
}

describe('decodeBase64 (strict, padded)', () => {
  it('decodes canonical padded base64', () => {
    expect(text(decodeBase64('SGVsbG8='))).toBe('Hello')
    expect(text(decodeBase64('SGVsbA=='))).toBe('Hell')
    expect(text(decodeBase64('SGVs'))).toBe('Hel')
    expect(decodeBase64('')).toEqual(new Uint8Array(0))
  })

  it('requires padding', () => {
    expect(decodeBase64('SGVsbG8')).toBeUndefined()
    expect(decodeBase64('SGVsbA=')).toBeUndefined()
    expect(decodeBase64('SGVsbA')).toBeUndefined()
  })

  it('refuses too much padding and padding in the middle', () => {
    expect(decodeBase64('SGVsbG8==')).toBeUndefined()
    expect(decodeBase64('SGVsbA===')).toBeUndefined()
    expect(decodeBase64('SG=sbG8=')).toBeUndefined()
    expect(decodeBase64('====')).toBeUndefined()
  })

  it('refuses non-canonical trailing bits (a second spelling of the same bytes)', () => {
    // 'Hello' leaves 2 spare bits in the last character: '8' has them clear, '9' does not.
    expect(decodeBase64('SGVsbG9=')).toBeUndefined()
    // 'Hell' leaves 4 spare bits: 'A' is canonical, 'B' and 'P' are not ('Q' would be 'Helm').
    expect(decodeBase64('SGVsbB==')).toBeUndefined()
    expect(decodeBase64('SGVsbP==')).toBeUndefined()
    expect(text(decodeBase64('SGVsbQ=='))).toBe('Helm')
  })

  it('refuses characters outside the standard alphabet', () => {
    expect(decodeBase64('SGVs-G8=')).toBeUndefined()
    expect(decodeBase64('SGVs_G8=')).toBeUndefined()
    expect(decodeBase64('SGVs bG8=')).toBeUndefined()
    expect(decodeBase64('SGVsbG8=\n')).toBeUndefined()
    expect(decodeBase64(' SGVsbG8=')).toBeUndefined()
    expect(decodeBase64('SGVsé8=A')).toBeUndefined()
  })

  it('round-trips every length from 0 to 70 bytes', () => {
    for (let length = 0; length <= 70; length++) {
      const bytes = bytesOf(length, length + 1)
      const encoded = encodeBase64(bytes)
      expect(encoded.length % 4).toBe(0)
      expect(decodeBase64(encoded)).toEqual(bytes)
    }
  })

  it('encodes inputs larger than one 32 KiB chunk', () => {
    const bytes = bytesOf(100_003)
    const encoded = encodeBase64(bytes)
    expect(encoded === Buffer.from(bytes).toString('base64')).toBe(true)
    const decoded = decodeBase64(encoded)
    expect(decoded && Buffer.from(decoded).equals(Buffer.from(bytes))).toBe(true)
  })
})

describe('base64url', () => {
  it('uses - and _ and no padding', () => {
    const bytes = new Uint8Array([0xfb, 0xff])
    expect(encodeBase64(bytes)).toBe('+/8=')
    expect(encodeBase64Url(bytes)).toBe('-_8')
    expect(decodeBase64Url('-_8')).toEqual(bytes)
  })

  it('refuses the standard-only characters, padding and impossible lengths', () => {
    expect(decodeBase64Url('+/8')).toBeUndefined()
    expect(decodeBase64Url('-_8=')).toBeUndefined()
    expect(decodeBase64Url('A')).toBeUndefined()
    expect(decodeBase64Url('AAAAA')).toBeUndefined()
    expect(decodeBase64Url('AA.A')).toBeUndefined()
  })

  it('refuses non-canonical trailing bits', () => {
    expect(decodeBase64Url('AA')).toEqual(new Uint8Array([0]))
    expect(decodeBase64Url('AB')).toBeUndefined()
    expect(decodeBase64Url('AAA')).toEqual(new Uint8Array([0, 0]))
    expect(decodeBase64Url('AAB')).toBeUndefined()
  })

  it('round-trips every length from 0 to 70 bytes and matches Node', () => {
    for (let length = 0; length <= 70; length++) {
      const bytes = bytesOf(length, 3 * length + 5)
      const encoded = encodeBase64Url(bytes)
      expect(encoded).toBe(Buffer.from(bytes).toString('base64url'))
      expect(encoded).toMatch(/^[A-Za-z0-9_-]*$/)
      expect(decodeBase64Url(encoded)).toEqual(bytes)
    }
  })

  it('round-trips UTF-8 text', () => {
    const bytes = utf8.encode('Grüße, 世界 🌍')
    expect(text(decodeBase64Url(encodeBase64Url(bytes)))).toBe('Grüße, 世界 🌍')
  })
})
