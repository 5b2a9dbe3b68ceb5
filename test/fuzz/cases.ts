/**
 * Fuzz cases for the whole request path, as fast-check arbitraries: the HTTP method, headers,
 * JSON-RPC envelope, `_meta`, arguments, `requestState` and URIs of a request, from plain garbage
 * to requests valid enough to reach the handlers of the conformance fixture. Each protocol era is
 * one `Era`; the harness (test/workers/fuzz.test.ts, test/http/fuzz.test.ts) draws from every era
 * in `ERAS` (test/fuzz/eras.ts), so the 2025-era lane adds its generator there and nothing else.
 */
import fc from 'fast-check'

/** One HTTP request to send, and what it is meant to be. */
export interface FuzzCase {
  method: string
  headers: Record<string, string>
  body: string | undefined
  /** The body is a JSON-RPC notification (no id): the only case where 202 is a valid answer. */
  notification: boolean
}

/** Real material the generators mutate: sealed states minted by the server, task ids it issued. */
export interface FuzzContext {
  /** States from real first rounds, with the tool and arguments they were minted for. */
  states: { tool: string; arguments: Record<string, unknown>; requestState: string }[]
  taskIds: string[]
  /** 2025-era session ids from real handshakes (no client capabilities), with their revision. */
  sessions: { id: string; version: string }[]
}

export interface Era {
  name: string
  cases(context: FuzzContext): fc.Arbitrary<FuzzCase>
}

/** Header values the Fetch API accepts: visible ASCII and inner spaces. */
export const headerText = fc.stringMatching(/^[\x21-\x7e]([\x20-\x7e]{0,38}[\x21-\x7e])?$/)

/** A JSON value with bounded size and depth (deep nesting has its own generator). */
export const jsonValue = fc.jsonValue({ maxDepth: 4, depthSize: 'small' })

/** Hex of about `length` characters, either case (strict parsing takes only exactly `length`, lowercase). */
const hex = (length: number) =>
  fc.string({ unit: fc.constantFrom(...'0123456789abcdefABCDEF'), minLength: length - 1, maxLength: length + 1 })

/**
 * W3C `traceparent` values (SEP-414 `_meta`, the HTTP header), valid and nearly so: versions,
 * lengths, case, all-zero ids and flags. Whatever they are, a request's answer is the same.
 */
export const traceparentText = fc.oneof(
  fc
    .tuple(fc.constantFrom('00', '01', 'ff', 'zz'), hex(32), hex(16), fc.constantFrom('00', '01', 'ff', '0x'))
    .map((parts) => parts.join('-')),
  fc.constant('00-00000000000000000000000000000000-0000000000000000-01'),
  fc.constant('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra'),
  headerText,
)

/** Arrays nested `depth` deep: exercises the JSON depth limit on both sides of it. */
export const deepJson = fc.integer({ min: 50, max: 200 }).map((depth) => `${'['.repeat(depth)}${']'.repeat(depth)}`)

/** Strings that probe paths, encodings and separators in URI template variables. */
export const uriSegment = fc.oneof(
  fc.constantFrom('..', '.', '%2E%2E', '..%2F..%2Fetc%2Fpasswd', '%2F', 'a%2Fb', '..%5Cwin.ini', '%00', '%E0%A4%A', '123'),
  fc.stringMatching(/^[A-Za-z0-9._~%-]{1,12}$/),
  fc.string({ maxLength: 8 }).map(encodeURIComponent),
)

/** Mutations of a real sealed state: flipped, cut, swapped or grown. */
export function mutatedState(states: FuzzContext['states']): fc.Arbitrary<string> {
  if (states.length === 0) return fc.string()
  return fc
    .tuple(fc.constantFrom(...states.map((state) => state.requestState)), fc.nat(), fc.nat({ max: 5 }))
    .map(([state, at, kind]) => {
      const index = at % state.length
      switch (kind) {
        case 0:
          return state
        case 1:
          return `${state.slice(0, index)}${state[index] === 'A' ? 'B' : 'A'}${state.slice(index + 1)}`
        case 2:
          return state.slice(0, index)
        case 3:
          return state.split('.').reverse().join('.')
        case 4:
          return `${state}${state}`
        default:
          return state.replace(/^1\./, '2.')
      }
    })
}
