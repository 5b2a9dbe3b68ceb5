/**
 * What an `McpAgent` object's set-up (`onStart`, `init()`) was made for, so that a request whose
 * grant differs there gets a set-up of its own (agent.ts).
 *
 * agents runs `init()` once per object, and its objects are 2025 sessions: a new sign-in is a new
 * session, a new object, a new `init()`. Here a 2026-07-28 client has no session and is served by
 * its principal's object, which outlives any one grant: an `init()` that registers a tool only for
 * `this.props.permissions` that include it, or captures a token from the props, would otherwise
 * serve the same person's next grant (fewer permissions, a new token) with the first grant's
 * tools. So the props are watched while the set-up runs: the keys it reads (`this.props.x`,
 * `getMcpAuthContext().props.x`, `onStart(props)`), or all of them when it walks them, and a
 * request whose props differ in any of those is served after the set-up runs again for it.
 * Props the set-up never reads (a token only a tool uses) change nothing.
 */

/** The props a set-up read: their values, compared as JSON, decide whether a request fits it. */
export interface PropsSeen {
  /** The props to hand the set-up: the request's own, watched. */
  readonly props: Record<string, unknown> | undefined
  /** Whether a request with `given` props is served the same by this set-up. */
  fits(given: Record<string, unknown> | undefined): boolean
}

let unmatched = 0

/** JSON of a value, or a text no other value gives when it has none (a cycle, a BigInt). */
function json(value: unknown): string {
  try {
    return JSON.stringify(value) ?? 'undefined'
  } catch {
    return `\u0000unmatched ${++unmatched}`
  }
}

/**
 * Watch what is read of `props` until the set-up is done; `fits` compares what was read (keys read
 * later, by work the set-up left running, count too, from when they are read).
 *
 * @example
 * const seen = watchProps(forwarded.props)
 * // run onStart and init() with seen.props as the request's props, then, per request:
 * if (!seen.fits(next.props)) setUpAgain()
 */
export function watchProps(props: Record<string, unknown> | undefined): PropsSeen {
  if (props === undefined) {
    // Nothing to read: a request with props of its own is served no more than a caller without any.
    return { props, fits: () => true }
  }
  const keys = new Set<string>()
  let whole = false
  const note = (key: string | symbol) => {
    if (typeof key === 'string') keys.add(key)
  }
  const watched = new Proxy(props, {
    get(target, key, receiver) {
      note(key)
      return Reflect.get(target, key, receiver)
    },
    has(target, key) {
      note(key)
      return Reflect.has(target, key)
    },
    getOwnPropertyDescriptor(target, key) {
      note(key)
      return Reflect.getOwnPropertyDescriptor(target, key)
    },
    ownKeys(target) {
      whole = true
      return Reflect.ownKeys(target)
    },
  })
  return {
    props: watched,
    fits(given) {
      if (!whole && keys.size === 0) return true
      if (given === undefined) return false
      if (whole) return json(props) === json(given)
      for (const key of keys) if (json(props[key]) !== json(given[key])) return false
      return true
    },
  }
}

/**
 * The requests an object is dispatching: each from when it is handed the app until the app has
 * answered it (a stream's response is an answer: what it sends later was looked up already), so a
 * set-up runs again only once no request is between looking up a tool and calling it.
 */
export class Dispatching {
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

  /** Resolves once no request is being dispatched. */
  drained(): Promise<void> {
    if (this.#count === 0) return Promise.resolve()
    return new Promise((resolve) => this.#waiting.push(resolve))
  }
}
