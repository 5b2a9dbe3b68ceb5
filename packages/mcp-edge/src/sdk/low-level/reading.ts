/**
 * Reading a low-level `Server`'s lists into the core's registries (server.ts): every page of a
 * list handler's answer, each item checked and made ready to register before anything changes
 * (`plan`), then one registry brought to the new items, all or nothing (`ListedRegistry`).
 */
import * as z from 'zod/v4/mini'
import { isObject } from '../../protocol/jsonrpc.ts'
import { ConfigurationError } from '../../server/errors.ts'
import { warnOnce } from '../../server/telemetry/log.ts'
import type { JsonSchema, ObjectSchema, Schema } from '../../server/schema/schema.ts'
import type { RequestHandlerExtra } from '../context.ts'
import { dropUndefined } from '../define.ts'
import { ListHandlerFailed } from './prepare.ts'
import type { RequestHandler } from './schemas.ts'

/** More pages than this from one list handler is a cursor that never ends. */
const MAX_PAGES = 100

/**
 * The `extra` of a list handler, which mcp-edge calls when it reads the list, not for a client's
 * request: there is no caller to name or to ask, and what it would send goes nowhere.
 */
function listingExtra(method: string): RequestHandlerExtra {
  const signal = new AbortController().signal
  // Never possible, unlike a handler that reads the client and throws without one (server.ts `#readFor`).
  const nobody = () =>
    Promise.reject(
      new ConfigurationError(`${method} is read when mcp-edge builds its lists, with no client to ask (docs/migrate.md)`),
    )
  const quiet = async () => {}
  // A list filtered by its caller would be read with none, and serve every caller alike: said once.
  const callerless = () => {
    warnOnce(
      `${method}'s handler read its caller (authInfo, http), which it has none of: mcp-edge reads a low-level Server's ` +
        'lists once, for every caller; build a server per caller in a factory (createMcpHandler(() => …), docs/migrate.md)',
    )
    return undefined
  }
  const mcpReq = { id: 0, method, signal, inputResponses: undefined, requestState: () => undefined, log: quiet }
  const extra = {
    signal,
    requestId: 0,
    sendNotification: quiet,
    sendRequest: nobody,
    mcpReq: { ...mcpReq, elicitInput: nobody, requestSampling: nobody, send: nobody, notify: quiet },
  }
  // Undefined as before, read or not: not enumerable, so a spread or a log of `extra` reads neither.
  for (const key of ['authInfo', 'http']) Object.defineProperty(extra, key, { get: callerless, enumerable: false })
  return extra as unknown as RequestHandlerExtra
}

/**
 * Every item of a paginated list (`key` of each page's result, `nextCursor` followed). What the
 * handler throws is a `ListHandlerFailed` (user code: its message is for the log, not the client),
 * but for asking the client, which a list handler never can; an answer that is no list is a
 * `ConfigurationError` naming what is wrong.
 */
export async function readPages(handler: RequestHandler, method: string, key: string): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = []
  let cursor: unknown
  for (let page = 0; page < MAX_PAGES; page++) {
    const params = typeof cursor === 'string' ? { cursor } : {}
    let result: unknown
    try {
      result = await handler({ method, params }, listingExtra(method))
    } catch (error) {
      throw error instanceof ConfigurationError ? error : new ListHandlerFailed(method, error)
    }
    const listed = isObject(result) ? result[key] : undefined
    if (!Array.isArray(listed)) throw new ConfigurationError(`${method}: the handler returned no "${key}" array`)
    for (const item of listed) {
      if (!isObject(item)) throw new ConfigurationError(`${method}: an item of "${key}" is not an object`)
      items.push(item)
    }
    cursor = (result as { nextCursor?: unknown }).nextCursor
    if (typeof cursor !== 'string') return items
  }
  throw new ConfigurationError(`${method}: more than ${MAX_PAGES} pages (a nextCursor that never ends?)`)
}

/** An item ready to register: its key, its listing as JSON (to tell a change), and how to add it. */
export interface Planned {
  key: string
  json: string
  add(): void
}

/**
 * `items` made ready to register, each checked first (`prepare` throws for one the core cannot
 * serve, naming it), so that a bad item changes nothing. `salt` is what else the registration
 * depends on (whether a completion handler is set), so that a change of it counts as a change.
 */
export function plan(
  items: Record<string, unknown>[],
  method: string,
  what: string,
  keyField: string,
  prepare: (key: string, item: Record<string, unknown>) => () => void,
  salt = '',
): Planned[] {
  const seen = new Set<string>()
  return items.map((item) => {
    const key = item[keyField]
    if (typeof key !== 'string' || key === '') throw new ConfigurationError(`${method}: a ${what} has no ${keyField}`)
    if (seen.has(key)) throw new ConfigurationError(`${method}: ${what} "${key}" is listed twice`)
    seen.add(key)
    return { key, json: JSON.stringify(item) + salt, add: prepare(key, item) }
  })
}

/**
 * One of the core's registries as a list handler fills it. `apply` brings it to a new read: when
 * anything changed (an item, the order, or an entry the registry lost, as an `McpAgent`'s rollback
 * takes back what a failed `init()` registered), every item of the last read is removed and the new
 * ones added in their order; if an add throws (the core refuses it), what was there before is put
 * back. It returns how to undo it (a later registry's failure, in the same read).
 */
export class ListedRegistry {
  #applied: Planned[] = []
  readonly #registry: ReadonlyMap<string, unknown>
  readonly #remove: (key: string) => void

  /** `registry`, one of the core server's maps, and how to remove an entry from it (which announces it). */
  constructor(registry: ReadonlyMap<string, unknown>, remove: (key: string) => void) {
    this.#registry = registry
    this.#remove = remove
  }

  #has(key: string): boolean {
    return this.#registry.has(key)
  }

  apply(next: Planned[]): () => void {
    const previous = this.#applied
    const same =
      previous.length === next.length &&
      next.every((item, i) => previous[i]?.key === item.key && previous[i]?.json === item.json && this.#has(item.key))
    if (same) return () => {}
    for (const { key } of previous) this.#remove(key)
    const added: Planned[] = []
    try {
      for (const item of next) {
        item.add()
        added.push(item)
      }
    } catch (error) {
      for (const { key } of added) this.#remove(key)
      for (const item of previous) if (!this.#has(item.key)) item.add()
      // The core's refusal names the item and the fix, and nothing of the caller's: a client may read it.
      throw error instanceof ConfigurationError ? error : new ConfigurationError((error as Error).message)
    }
    this.#applied = next
    return () => void this.apply(previous)
  }

  /** Whether every entry of the last read is still registered (an `McpAgent`'s rollback may have taken some back). */
  intact(): boolean {
    return this.#applied.every((item) => this.#has(item.key))
  }
}

/** A raw JSON Schema given as a tool's `outputSchema`, as the core takes an output: a zod schema it converts. */
const rawSchemas = new WeakMap<Schema, JsonSchema>()

/** The server's JSON Schema converter, which gives a raw output schema back as it was listed. */
export const convertingRaw =
  (convert: (schema: Schema, io: 'input' | 'output') => JsonSchema) =>
  (schema: Schema, io: 'input' | 'output'): JsonSchema =>
    rawSchemas.get(schema) ?? convert(schema, io)

/**
 * A listed `outputSchema` as the core's output: advertised as given (with `type: "object"` added to
 * a root that can only describe objects, as every tool's: tool-entry.ts), and (as the SDK's
 * low-level server) checking nothing.
 */
export function rawOutput(jsonSchema: JsonSchema): Schema {
  const schema = z.unknown()
  rawSchemas.set(schema, jsonSchema)
  return schema
}

/**
 * A prompt's listed arguments as the core takes them: a zod object of strings, described, loose
 * (arguments it did not list reach the handler, as the SDK passes the request's on).
 */
export function promptArgs(args: unknown, name: string): ObjectSchema | undefined {
  if (args === undefined) return undefined
  if (!Array.isArray(args)) throw new ConfigurationError(`prompts/list: prompt "${name}" has arguments that are not an array`)
  // No prototype: an argument may be named `__proto__`.
  const shape: Record<string, Schema> = Object.create(null)
  for (const arg of args) {
    if (!isObject(arg) || typeof arg.name !== 'string') {
      throw new ConfigurationError(`prompts/list: prompt "${name}" has an argument without a name`)
    }
    // zod leaves `__proto__` out of what it parses, so the handler would never get it.
    if (arg.name === '__proto__') throw new ConfigurationError(`prompts/list: prompt "${name}" has an argument named __proto__`)
    if (Object.hasOwn(shape, arg.name)) {
      throw new ConfigurationError(`prompts/list: prompt "${name}" lists argument "${arg.name}" twice`)
    }
    const described = dropUndefined({ description: arg.description, title: arg.title }) as {
      description?: string
      title?: string
    }
    const string = z.string().register(z.globalRegistry, described)
    shape[arg.name] = arg.required === true ? string : z.optional(string)
  }
  return z.looseObject(shape)
}

/** `from`'s fields named in `keys` that it has. */
export function pick(from: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(keys.filter((key) => from[key] !== undefined).map((key) => [key, from[key]]))
}
