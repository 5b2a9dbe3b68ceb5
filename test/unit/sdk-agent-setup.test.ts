/**
 * What an McpAgent's set-up read of the props decides which requests it serves (agent-setup.ts):
 * only the keys it read count, all of them once it walked them; and a set-up runs again only once
 * the requests being dispatched are answered. (Served by an agent: test/http/sdk-agent.test.ts.)
 */
import { describe, expect, it } from 'vitest'
import { Dispatching, watchProps } from '../../packages/mcp-edge/src/sdk/agent-setup.ts'

const grant = { sub: 'dave', permissions: ['image_generation'], claims: { org: 'acme' }, accessToken: 't1' }

describe('watchProps', () => {
  it('fits any props while the set-up read none of them', () => {
    const seen = watchProps(grant)
    expect(seen.fits({ sub: 'dave', permissions: [] })).toBe(true)
    expect(seen.fits(undefined)).toBe(true)
  })

  it('compares the keys read, as JSON, deep values included, and nothing else', () => {
    const seen = watchProps(grant)
    const props = seen.props as typeof grant
    expect(props.permissions.includes('image_generation')).toBe(true)
    expect(props.claims.org).toBe('acme')
    expect(seen.fits({ ...grant, accessToken: 't2' })).toBe(true)
    expect(seen.fits({ ...grant, permissions: [] })).toBe(false)
    expect(seen.fits({ ...grant, claims: { org: 'other' } })).toBe(false)
    expect(seen.fits(undefined)).toBe(false)
  })

  it('counts a key asked about with `in`, or read through its descriptor, even when it is missing', () => {
    const asked = watchProps({ sub: 'dave' })
    expect('admin' in (asked.props ?? {})).toBe(false)
    expect(asked.fits({ sub: 'dave', admin: true })).toBe(false)
    expect(asked.fits({ sub: 'erin' })).toBe(true)
    const described = watchProps({ sub: 'dave' })
    expect(Object.getOwnPropertyDescriptor(described.props, 'sub')?.value).toBe('dave')
    expect(described.fits({ sub: 'erin' })).toBe(false)
  })

  it('compares everything once the set-up walked the props (spread, keys, JSON)', () => {
    for (const walk of [
      (props: object) => ({ ...props }),
      (props: object) => Object.keys(props),
      (props: object) => JSON.stringify(props),
    ]) {
      const seen = watchProps(grant)
      walk(seen.props as object)
      expect(seen.fits({ ...grant })).toBe(true)
      expect(seen.fits({ ...grant, accessToken: 't2' })).toBe(false)
    }
  })

  it('counts keys read after the set-up, by work it left running, from then on', () => {
    const seen = watchProps(grant)
    expect(seen.fits({ ...grant, accessToken: 't2' })).toBe(true)
    expect(seen.props?.accessToken).toBe('t1')
    expect(seen.fits({ ...grant, accessToken: 't2' })).toBe(false)
  })

  it('never matches a value JSON cannot write', () => {
    const seen = watchProps({ big: 1n })
    expect(seen.props?.big).toBe(1n)
    expect(seen.fits({ big: 1n })).toBe(false)
  })

  it('without props, hands none to the set-up and fits every request', () => {
    const seen = watchProps(undefined)
    expect(seen.props).toBeUndefined()
    expect(seen.fits(grant)).toBe(true)
  })
})

describe('Dispatching', () => {
  it('resolves drained() once every request started has ended, and at once when none has', async () => {
    const dispatching = new Dispatching()
    await dispatching.drained()
    dispatching.start()
    dispatching.start()
    let drained = false
    const waiting = dispatching.drained().then(() => {
      drained = true
    })
    dispatching.end()
    await Promise.resolve()
    expect(drained).toBe(false)
    dispatching.end()
    await waiting
    expect(drained).toBe(true)
  })
})
