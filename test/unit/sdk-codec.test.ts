/**
 * mcp-edge/sdk's createRequestStateCodec (SDK 2.x's): a minted state verifies and gives its payload
 * back; a changed byte, an expired state, a state bound elsewhere and a short key are refused.
 */
import { describe, expect, it, vi } from 'vitest'
import type { RequestHandlerExtra } from '../../packages/mcp-edge/src/sdk/context.ts'
import { createRequestStateCodec } from '../../packages/mcp-edge/src/sdk/codec.ts'

const KEY = 'a test key of at least thirty-two bytes!'
const asCaller = (subject: string) => ({ authInfo: { clientId: subject } }) as unknown as RequestHandlerExtra

describe('createRequestStateCodec', () => {
  it('verifies what it minted and gives the payload back', async () => {
    const codec = createRequestStateCodec<{ step: number }>({ key: KEY })
    const state = await codec.mint({ step: 2 })
    expect(state).toMatch(/^v1\.[\w-]+\.[\w-]+$/)
    expect(await codec.verify(state, asCaller('a'))).toEqual({ step: 2 })
  })

  it('refuses a changed state, another key, an expired state and a state bound to another caller', async () => {
    const codec = createRequestStateCodec<{ step: number }>({ key: KEY, bind: (ctx) => String(ctx.authInfo?.clientId) })
    const state = await codec.mint({ step: 1 }, asCaller('ada'))
    const [version, body, mac] = state.split('.') as [string, string, string]
    const flipped = `${version}.${body.slice(0, -1)}${body.endsWith('A') ? 'B' : 'A'}.${mac}`
    await expect(codec.verify(flipped, asCaller('ada'))).rejects.toThrow(/mac|malformed/)
    await expect(createRequestStateCodec({ key: `${KEY}x` }).verify(state, asCaller('ada'))).rejects.toThrow('mac')
    await expect(codec.verify(state, asCaller('bob'))).rejects.toThrow('bind')
    expect(await codec.verify(state, asCaller('ada'))).toEqual({ step: 1 })
    vi.useFakeTimers({ now: Date.now() + 601_000 })
    try {
      await expect(codec.verify(state, asCaller('ada'))).rejects.toThrow('expired')
    } finally {
      vi.useRealTimers()
    }
  })

  it('refuses a key shorter than 32 bytes, as the SDK does', () => {
    expect(() => createRequestStateCodec({ key: 'short' })).toThrow(RangeError)
  })
})
