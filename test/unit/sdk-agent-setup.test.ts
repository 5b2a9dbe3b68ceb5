/**
 * What an McpAgent's set-up read of the props decides which requests it serves (agent/setup.ts):
 * the keys it read, present or missing, compared as JSON; the props it is handed can be stored and
 * sent, and answer as the running request's once it is done; and `SetUps` sets up again only once
 * the requests under way are answered, one set-up at a time. (Served by an agent, under
 * `wrangler dev`: test/http/sdk-agent.test.ts.)
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { DRAIN_TIMEOUT_MS, SetUpBusy, SetUps, watchProps } from '../../packages/mcp-edge/src/sdk/agent/setup.ts'
import type { RequestStore } from '../../packages/mcp-edge/src/sdk/request-store.ts'
import { withRequest } from '../../packages/mcp-edge/src/sdk/request-store.ts'

const grant = { sub: 'dave', permissions: ['image_generation'], claims: { org: 'acme' }, accessToken: 't1' }
type Grant = typeof grant

describe('watchProps', () => {
  it('serves any props with the same keys while the set-up read none of them', () => {
    const seen = watchProps(grant)
    expect(seen.differing({ ...grant, sub: 'erin', permissions: [] })).toEqual([])
    expect(seen.differing(undefined)).toEqual([])
  })

  it('compares the keys read, as JSON, deep values included, and nothing else', () => {
    const seen = watchProps(grant)
    const props = seen.props as Grant
    expect(props.permissions.includes('image_generation')).toBe(true)
    expect(props.claims.org).toBe('acme')
    expect(seen.differing({ ...grant, accessToken: 't2' })).toEqual([])
    expect(seen.differing({ ...grant, permissions: [] })).toEqual(['permissions'])
    expect(seen.differing({ ...grant, claims: { org: 'other' }, permissions: [] })).toEqual(['permissions', 'claims'])
    expect(seen.differing(undefined)).toEqual(['props'])
  })

  it('compares a value as it was read, whatever the set-up did to it after', () => {
    const seen = watchProps({ sub: 'dave', permissions: ['b', 'a'] })
    ;(seen.props as { permissions: string[] }).permissions.sort()
    expect(seen.differing({ sub: 'dave', permissions: ['b', 'a'] })).toEqual([])
    expect(seen.differing({ sub: 'dave', permissions: ['a', 'b'] })).toEqual(['permissions'])
    // Written, as agents' props could be, without changing what was read.
    const written = watchProps({ sub: 'dave', note: 'x' })
    ;(written.props as { note: string }).note = 'y'
    expect((written.props as { note: string }).note).toBe('y')
  })

  it("counts which keys there are once anything is read: `'admin' in props` reads no value", () => {
    const seen = watchProps({ sub: 'dave', admin: true })
    expect(seen.props?.sub).toBe('dave')
    expect('admin' in (seen.props as object)).toBe(true)
    expect(seen.differing({ sub: 'dave' })).toEqual(['(its keys)'])
    expect(seen.differing({ admin: true, sub: 'dave' })).toEqual([])
    // Asked alone, reading no value at all (`in`, `Object.hasOwn`): the next grant without it differs.
    for (const ask of [(props: object) => 'admin' in props, (props: object) => Object.hasOwn(props, 'admin')]) {
      const only = watchProps({ sub: 'dave', admin: true })
      expect(ask(only.props as object)).toBe(true)
      expect(only.differing({ sub: 'dave' })).toEqual(['(its keys)'])
    }
  })

  it('counts a key the set-up found missing, read or asked about with `in`', () => {
    const read = watchProps({ sub: 'dave' })
    expect((read.props as { admin?: boolean }).admin).toBeUndefined()
    expect(read.differing({ sub: 'dave', admin: true })).toEqual(['admin'])
    expect(read.differing({ sub: 'erin' })).toEqual([])
    const asked = watchProps({ sub: 'dave' })
    expect('admin' in (asked.props as object)).toBe(false)
    expect(asked.differing({ sub: 'dave', admin: true })).toEqual(['admin'])
    // What every object has is not a key of the props.
    const plain = watchProps({ sub: 'dave' })
    expect(String(plain.props)).toBe('[object Object]')
    expect(plain.props instanceof Object).toBe(true)
    expect(plain.differing({ sub: 'erin' })).toEqual([])
  })

  it('hands the set-up props it can store and send: structuredClone and JSON copy them, reading every key', () => {
    const cloned = watchProps(grant)
    expect(structuredClone(cloned.props)).toEqual(grant)
    expect(cloned.differing({ ...grant, accessToken: 't2' })).toEqual(['accessToken'])
    const written = watchProps(grant)
    expect(JSON.parse(JSON.stringify(written.props))).toEqual(grant)
    expect({ ...written.props }).toEqual(grant)
    expect(Object.keys(written.props as object)).toEqual(Object.keys(grant))
  })

  it('once settled, answers as the running request (none for one without props), and is a plain object', () => {
    const seen = watchProps(grant)
    const kept = seen.props as Grant
    seen.settle()
    expect(Object.getPrototypeOf(kept)).toBe(Object.prototype)
    const store = (props: unknown) => ({ props }) as unknown as RequestStore
    withRequest(store({ ...grant, accessToken: 't2' }), () => expect(kept.accessToken).toBe('t2'))
    withRequest(store(undefined), () => expect(kept.accessToken).toBeUndefined())
    // Outside a request (an alarm), the set-up's; and read after the set-up no longer counts.
    expect(kept.accessToken).toBe('t1')
    expect(seen.differing({ ...grant, accessToken: 't3' })).toEqual([])
  })

  it('without props, hands none to the set-up and serves only requests without any', () => {
    const seen = watchProps(undefined)
    expect(seen.props).toBeUndefined()
    expect(seen.differing(undefined)).toEqual([])
    expect(seen.differing(grant)).toEqual(['props'])
  })
})

/** A set-up that reads `permissions`, as the authkit demo's init() does, and says what it made. */
function setUpLog() {
  const made: { permissions: string; again: boolean }[] = []
  let fail = false
  const setUp = async (props: Record<string, unknown> | undefined, again: boolean) => {
    const permissions = String(props?.permissions)
    made.push({ permissions, again })
    if (fail) {
      fail = false
      throw new Error('the upstream was not ready')
    }
    return `app for ${permissions}`
  }
  return { made, setUp, failNext: () => (fail = true) }
}

/** Every callback due now has run (a turn of the event loop: no clock involved). */
const turn = () => new Promise((resolve) => setImmediate(resolve))

describe('SetUps', () => {
  afterEach(() => {
    vi.useRealTimers()
    vi.restoreAllMocks()
  })

  const a = { sub: 'dave', permissions: ['a'], accessToken: 't1' }
  const b = { sub: 'dave', permissions: ['b'], accessToken: 't1' }

  it('sets up once for requests whose props it read the same, and again for other ones, once those are answered', async () => {
    vi.spyOn(console, 'log').mockImplementation(() => {})
    const setUps = new SetUps<string>('GateMCP')
    const log = setUpLog()
    const first = await setUps.appFor(a, log.setUp)
    const second = await setUps.appFor({ ...a, accessToken: 't2' }, log.setUp)
    expect([first.app, second.app]).toEqual(['app for a', 'app for a'])
    expect(log.made).toEqual([{ permissions: 'a', again: false }])
    // Two requests under way: another grant waits for both to be answered.
    let served: string | undefined
    const waiting = setUps.appFor(b, log.setUp).then((set) => {
      served = set.app
      return set
    })
    await turn()
    expect(served).toBeUndefined()
    // Meanwhile a request of the first grant waits too, for the set-up under way.
    const meanwhile = setUps.appFor(a, log.setUp)
    first.answered()
    await turn()
    expect(served).toBeUndefined()
    second.answered()
    const forB = await waiting
    expect(served).toBe('app for b')
    // The first grant's request is then set up for again, once b's is answered.
    forB.answered()
    expect((await meanwhile).app).toBe('app for a')
    expect(log.made).toEqual([
      { permissions: 'a', again: false },
      { permissions: 'b', again: true },
      { permissions: 'a', again: true },
    ])
    expect(console.log).toHaveBeenCalledWith(expect.stringContaining('"keys":"permissions"'))
  })

  it("fails the requests a failed set-up was for, and sets up for another grant's that waited on it", async () => {
    vi.spyOn(console, 'log').mockImplementation(() => {})
    const setUps = new SetUps<string>('GateMCP')
    const log = setUpLog()
    log.failNext()
    const [first, same, other] = await Promise.allSettled([
      setUps.appFor(a, log.setUp),
      setUps.appFor(a, log.setUp),
      setUps.appFor(b, log.setUp),
    ])
    expect(first).toMatchObject({ status: 'rejected', reason: { message: 'the upstream was not ready' } })
    expect(same).toMatchObject({ status: 'rejected' })
    expect(other).toMatchObject({ status: 'fulfilled', value: { app: 'app for b' } })
    // The failed set-up is not kept: the next request of that grant sets up afresh.
    ;(other as PromiseFulfilledResult<{ answered: () => void }>).value.answered()
    expect((await setUps.appFor(a, log.setUp)).app).toBe('app for a')
    expect(log.made.map((made) => made.again)).toEqual([false, false, true])
  })

  it(`answers another grant SetUpBusy after ${DRAIN_TIMEOUT_MS} ms of a request still being answered (then at once, until it is), and serves on as it was`, async () => {
    vi.useFakeTimers()
    vi.spyOn(console, 'log').mockImplementation(() => {})
    vi.spyOn(console, 'warn').mockImplementation(() => {})
    const setUps = new SetUps<string>('GateMCP')
    const log = setUpLog()
    const hung = await setUps.appFor(a, log.setUp)
    const other = setUps.appFor(b, log.setUp)
    const same = setUps.appFor(a, log.setUp)
    const refused = expect(other).rejects.toBeInstanceOf(SetUpBusy)
    await vi.advanceTimersByTimeAsync(DRAIN_TIMEOUT_MS - 1)
    expect(log.made).toHaveLength(1)
    await vi.advanceTimersByTimeAsync(1)
    await refused
    expect(console.warn).toHaveBeenCalledWith(expect.stringContaining('could not be set up for another grant'))
    // The first grant's set-up was never taken back: its requests are served by it, without a set-up.
    expect((await same).app).toBe('app for a')
    expect(log.made).toHaveLength(1)
    // While the hung request is unanswered, the other grant's next request is refused at once,
    // with no second wait, and the first grant's are served meanwhile.
    let again: unknown
    setUps.appFor(b, log.setUp).catch((error: unknown) => (again = error))
    const meanwhile = setUps.appFor(a, log.setUp)
    await vi.advanceTimersByTimeAsync(0)
    expect(again).toBeInstanceOf(SetUpBusy)
    expect((await meanwhile).app).toBe('app for a')
    ;(await meanwhile).answered()
    expect(console.warn).toHaveBeenCalledTimes(1)
    // Once the hung request is answered (and the one after it), the other grant is set up for.
    hung.answered()
    ;(await same).answered()
    vi.useRealTimers()
    expect((await setUps.appFor(b, log.setUp)).app).toBe('app for b')
  })
})
