/**
 * What an `McpAgent` object's set-up (`onStart`, `init()`) was made for, so that a request whose
 * grant differs there gets a set-up of its own (agent.ts).
 *
 * agents runs `init()` once per object, and its objects are 2025 sessions: a new sign-in is a new
 * session, a new object, a new `init()`. Here a 2026-07-28 client has no session and is served by
 * its principal's object, which outlives any one grant: an `init()` that registers a tool only for
 * `this.props.permissions` that include it would otherwise serve the same person's next grant
 * (fewer permissions, or more) with the first grant's tools. So the props are watched while the
 * set-up runs: the keys it reads (`this.props.x`, `getMcpAuthContext().props.x`, `onStart(props)`,
 * a key it finds missing), and a request whose props differ in any of those is served after the
 * set-up runs again for it. Props the set-up never reads (a token only a tool reads) change nothing.
 *
 * The props the set-up is handed are a plain object with a getter per key (a `Proxy` cannot be
 * stored: `structuredClone` refuses it), on a prototype that notes the keys asked for and missing;
 * which keys there are counts as read once anything is (`'admin' in props` reads no value). Once
 * the set-up is done, the object is plain (workerd's RPC sends no other) and answers with the
 * props of the request running then, as `this.props` does: a tool that kept
 * `const props = this.props` from `init()` reads its own caller's token, not the set-up's.
 *
 * A set-up runs again only once the requests the last one is dispatching have been answered (a
 * request looks its tool up between being handed the app and answering). Not answered within
 * `DRAIN_TIMEOUT_MS`, the request that needs the new set-up is answered 503 (`SetUpBusy`) and the
 * last set-up serves on: a request still sending its body has not looked its tool up yet. Until
 * every request of that set-up under way is answered, the next one that needs a new set-up is
 * answered 503 at once.
 */
import { libraryLog } from '../../server/telemetry/log.ts'
import { currentRequest } from '../request-store.ts'

type Props = Record<string, unknown>

/** How long a set-up for other props waits for the requests under way (module header). */
export const DRAIN_TIMEOUT_MS = 30_000

/** The props a set-up read: their values, compared as JSON, decide whether a request fits it. */
export interface PropsSeen {
  /** The props to hand the set-up: the request's own, watched. */
  readonly props: Props | undefined
  /** The keys read whose values differ in `given` (none: the set-up serves `given` as it is). */
  differing(given: Props | undefined): string[]
  /** The set-up is done: from now on the props answer as the running request's. */
  settle(): void
}

const json = (value: unknown) => JSON.stringify(value) ?? 'undefined'

/** A key every object has (`toString`, `constructor`): not one of the props. */
const inherited = (key: PropertyKey) => typeof key !== 'string' || key in Object.prototype

/**
 * Watch what is read of `props` until `settle()` (module header).
 *
 * @example
 * const seen = watchProps(forwarded.props)
 * // run onStart and init() with seen.props as the request's props, then seen.settle(); per request:
 * if (seen.differing(next.props).length > 0) setUpAgain()
 */
export function watchProps(props: Props | undefined): PropsSeen {
  // Without props, a request with props of its own is set up for them (and the reverse, below).
  if (props === undefined) return { props, differing: (given) => (given === undefined ? [] : ['props']), settle() {} }
  // Each key read, with its value as it was read (init() may change the object after).
  const read = new Map<string, string>()
  const note = (key: string) => {
    if (!read.has(key)) read.set(key, json(props[key]))
  }
  const keysOf = (of: Props) => json(Object.keys(of).sort())
  const keys = keysOf(props)
  let settled = false
  const watched: Props = Object.create(missing(note, () => settled))
  // Once settled, the request running now's props (none for one without), unless it is the
  // set-up's own (work it left running) or there is none (an alarm): the set-up's.
  const now = (): Props => {
    const store = currentRequest()
    if (store === undefined || store.props === watched) return props
    return store.props ?? {}
  }
  for (const key of Object.keys(props)) {
    Object.defineProperty(watched, key, {
      enumerable: true,
      configurable: true,
      get() {
        if (settled) return now()[key]
        note(key)
        return props[key]
      },
      set(value: unknown) {
        props[key] = value
      },
    })
  }
  return {
    props: watched,
    differing(given) {
      if (given === undefined) return read.size === 0 ? [] : ['props']
      const differing = [...read].filter(([key, was]) => was !== json(given[key])).map(([key]) => key)
      // A key's presence is asked without reading it (`'admin' in props`, `Object.hasOwn`), which
      // nothing notes: which keys there are counts, whatever was read.
      if (differing.length === 0 && keysOf(given) !== keys) differing.push('(its keys)')
      return differing
    },
    settle() {
      settled = true
      // A plain object from here on, which workerd's RPC sends (it refuses another prototype).
      Object.setPrototypeOf(watched, Object.prototype)
    },
  }
}

/**
 * The prototype of the watched props while the set-up runs: a key they lack is looked up here,
 * and noted (`if (this.props.admin)` for a grant without `admin` reads it as much as one with it).
 */
function missing(note: (key: string) => void, settled: () => boolean): object {
  return new Proxy(Object.create(null), {
    get(_target, key, receiver) {
      if (!inherited(key) && !settled()) note(key as string)
      return Reflect.get(Object.prototype, key, receiver)
    },
    has(_target, key) {
      if (!inherited(key) && !settled()) note(key as string)
      return Reflect.has(Object.prototype, key)
    },
    getPrototypeOf: () => Object.prototype,
  })
}

/**
 * The requests an object is dispatching: each from when it is handed the app until the app has
 * answered it (a stream's response is an answer: what it sends later was looked up already).
 */
class Dispatching {
  #count = 0
  #waiting: (() => void)[] = []
  /** A wait timed out: the next ones fail at once, until every request under way is answered. */
  #stuck = false

  start(): void {
    this.#count++
  }

  end(): void {
    if (--this.#count > 0) return
    this.#stuck = false
    const waiting = this.#waiting
    this.#waiting = []
    for (const resume of waiting) resume()
  }

  /**
   * Resolves `drained` once no request is being dispatched, or `timedOut` after `timeoutMs`; at
   * once `stuck` after a wait timed out, until every request under way is answered.
   */
  drained(timeoutMs: number): Promise<'drained' | 'timedOut' | 'stuck'> {
    if (this.#count === 0) return Promise.resolve('drained')
    if (this.#stuck) return Promise.resolve('stuck')
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#stuck = true
        resolve('timedOut')
      }, timeoutMs)
      this.#waiting.push(() => {
        clearTimeout(timer)
        resolve('drained')
      })
    })
  }
}

/** One set-up: the app it serves once done, what it read of the props, and the requests it is dispatching. */
interface SetUp<App> {
  readonly app: Promise<App>
  readonly seen: PropsSeen
  readonly dispatching: Dispatching
}

/**
 * A request whose grant needs a set-up of its own while a request of the set-up serving now has
 * not been answered within `DRAIN_TIMEOUT_MS`: answered 503, to be sent again. Setting up anyway
 * could hand that request (one still sending its body, say) the other grant's tools.
 */
export class SetUpBusy extends Error {
  constructor(name: string) {
    super(
      `${name} is answering a request of another grant (for over ${DRAIN_TIMEOUT_MS / 1000} s) before it can be set up for this one: retry`,
    )
    this.name = 'SetUpBusy'
  }
}

/**
 * Set the object up for the watched `props`, in the request that asked: `again`, after another
 * set-up, whose registrations it takes back first.
 */
export type SetUpFor<App> = (props: Props | undefined, again: boolean) => Promise<App>

/**
 * An object's set-ups, one at a time: `appFor` hands each request the app set up for its props,
 * setting up again (with the request's `setUp`) when the last set-up read props that differ.
 *
 * @example
 * const { app, answered } = await setUps.appFor(request.props, (props, again) => start(request, props, again))
 * try { return await app.fetch(request) } finally { answered() }
 */
export class SetUps<App> {
  readonly #name: string
  #current: SetUp<App> | undefined

  /** `name`: the agent class's, for the log and the 503. */
  constructor(name: string) {
    this.#name = name
  }

  /**
   * The app for a request with `props`, counted as dispatching until `answered()`. Requests that
   * arrive while a set-up runs wait for it, and are served by it if it fits them; one that a failed
   * set-up does not fit sets up for itself. A failure that fits is thrown, and so is `SetUpBusy`
   * when the set-up for it could not start.
   */
  async appFor(props: Props | undefined, setUp: SetUpFor<App>): Promise<{ app: App; answered: () => void }> {
    for (;;) {
      const current = this.#current
      if (current === undefined) {
        this.#current = this.#begin(props, setUp, undefined)
        continue
      }
      let app: App
      try {
        app = await current.app
      } catch (error) {
        // Not started (busy): the set-up before serves on, and whoever it fits.
        const restored = this.#current
        if (error instanceof SetUpBusy && restored !== undefined && restored !== current) {
          if (restored.seen.differing(props).length === 0) continue
          throw error
        }
        if (current.seen.differing(props).length === 0) throw error
        continue
      }
      if (this.#current !== current) continue
      const differing = current.seen.differing(props)
      if (differing.length === 0) {
        current.dispatching.start()
        return { app, answered: () => current.dispatching.end() }
      }
      // Names only: props hold tokens.
      libraryLog.info(`${this.#name} is set up again: a request's props differ in what onStart and init() read`, {
        keys: differing.join(' '),
      })
      this.#current = this.#begin(props, setUp, current)
    }
  }

  #begin(props: Props | undefined, setUp: SetUpFor<App>, before: SetUp<App> | undefined): SetUp<App> {
    const seen = watchProps(props)
    const run = async () => {
      const drained = before === undefined ? 'drained' : await before.dispatching.drained(DRAIN_TIMEOUT_MS)
      if (drained !== 'drained') {
        // Said once per timeout; the refusals after it, at once, until the requests are answered, are not.
        if (drained === 'timedOut') {
          libraryLog.warn(`${this.#name} could not be set up for another grant: a request is still being answered`, {
            waitedMs: DRAIN_TIMEOUT_MS,
          })
        }
        throw new SetUpBusy(this.#name)
      }
      return setUp(seen.props, before !== undefined)
    }
    const begun: SetUp<App> = {
      seen,
      dispatching: new Dispatching(),
      app: run().then(
        (app) => {
          seen.settle()
          return app
        },
        (error: unknown) => {
          seen.settle()
          // Busy, the set-up before is as it was and serves on; otherwise the next request sets up again.
          if (this.#current === begun) this.#current = error instanceof SetUpBusy ? before : undefined
          throw error
        },
      ),
    }
    return begun
  }
}
