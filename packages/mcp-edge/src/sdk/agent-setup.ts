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
 * stored or sent: `structuredClone` refuses it), on a prototype that notes the keys asked for and
 * missing. Once the set-up is done, the same object answers with the props of the request running
 * then, as `this.props` does: a tool that kept `const props = this.props` from `init()` reads its
 * own caller's token, not the set-up's.
 *
 * A set-up runs again only once the requests the last one is dispatching have been answered (a
 * request looks its tool up between being handed the app and answering), or after
 * `DRAIN_TIMEOUT_MS`: a request that has not answered by then has long looked its tool up.
 */
import { libraryLog } from '../server/telemetry/log.ts'
import { currentRequest } from './request-store.ts'

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
  const read = new Set<string>()
  let settled = false
  const watched: Props = Object.create(missing(read, () => settled))
  // The request running now, unless it is the set-up's own (work it left running): its props.
  const now = () => {
    const running = currentRequest()?.props
    return running === undefined || running === watched ? props : running
  }
  for (const key of Object.keys(props)) {
    Object.defineProperty(watched, key, {
      enumerable: true,
      configurable: true,
      get() {
        if (settled) return now()[key]
        read.add(key)
        return props[key]
      },
    })
  }
  return {
    props: watched,
    differing(given) {
      if (read.size === 0) return []
      if (given === undefined) return ['props']
      return [...read].filter((key) => json(props[key]) !== json(given[key]))
    },
    settle() {
      settled = true
    },
  }
}

/**
 * The prototype of the watched props: a key they lack is looked up here, and noted while the
 * set-up runs (`if (this.props.admin)` for a grant without `admin` reads it as much as one with
 * it); once settled, answered from the running request's props as the own keys are.
 */
function missing(read: Set<string>, settled: () => boolean): object {
  return new Proxy(Object.create(null), {
    get(_target, key, receiver) {
      if (typeof key === 'string' && !(key in Object.prototype)) {
        if (!settled()) read.add(key)
        else {
          const running = currentRequest()?.props
          if (running !== undefined && running !== receiver && Object.hasOwn(running, key)) return running[key]
        }
      }
      return Reflect.get(Object.prototype, key, receiver)
    },
    has(_target, key) {
      if (typeof key === 'string' && !(key in Object.prototype) && !settled()) read.add(key)
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

  start(): void {
    this.#count++
  }

  end(): void {
    if (--this.#count > 0) return
    const waiting = this.#waiting
    this.#waiting = []
    for (const resume of waiting) resume()
  }

  /** Resolves once no request is being dispatched, or after `timeoutMs` (whether it drained). */
  drained(timeoutMs: number): Promise<boolean> {
    if (this.#count === 0) return Promise.resolve(true)
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs)
      this.#waiting.push(() => {
        clearTimeout(timer)
        resolve(true)
      })
    })
  }
}

/** One set-up: the app it serves once done, and what it read of the props. */
interface SetUp<App> {
  readonly app: Promise<App>
  readonly seen: PropsSeen
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
 * const app = await setUps.appFor(request.props, (props, again) => start(request, props, again))
 * try { return await app.fetch(request) } finally { setUps.answered() }
 */
export class SetUps<App> {
  readonly #name: string
  readonly #dispatching = new Dispatching()
  #current: SetUp<App> | undefined

  /** `name`: the agent class's, for the log. */
  constructor(name: string) {
    this.#name = name
  }

  /**
   * The app for a request with `props`, counted as dispatching until `answered()`. Requests that
   * arrive while a set-up runs wait for it, and are served by it if it fits them; one that a failed
   * set-up does not fit sets up for itself. A failure that fits is thrown.
   */
  async appFor(props: Props | undefined, setUp: SetUpFor<App>): Promise<App> {
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
        if (current.seen.differing(props).length === 0) throw error
        continue
      }
      if (this.#current !== current) continue
      const differing = current.seen.differing(props)
      if (differing.length === 0) {
        this.#dispatching.start()
        return app
      }
      // Names only: props hold tokens.
      libraryLog.info(`${this.#name} is set up again: a request's props differ in what onStart and init() read`, {
        keys: differing.join(' '),
      })
      this.#current = this.#begin(props, setUp, this.#drained())
    }
  }

  /** The request handed an app by `appFor` has been answered. */
  answered(): void {
    this.#dispatching.end()
  }

  async #drained(): Promise<void> {
    if (await this.#dispatching.drained(DRAIN_TIMEOUT_MS)) return
    libraryLog.warn(`${this.#name} is set up again while a request is still being answered, after ${DRAIN_TIMEOUT_MS} ms`)
  }

  #begin(props: Props | undefined, setUp: SetUpFor<App>, after: Promise<void> | undefined): SetUp<App> {
    const seen = watchProps(props)
    const run = async () => {
      await after
      return setUp(seen.props, after !== undefined)
    }
    const begun: SetUp<App> = {
      seen,
      app: run().then(
        (app) => {
          seen.settle()
          return app
        },
        (error: unknown) => {
          seen.settle()
          // The next request sets it up again.
          if (this.#current === begun) this.#current = undefined
          throw error
        },
      ),
    }
    return begun
  }
}
