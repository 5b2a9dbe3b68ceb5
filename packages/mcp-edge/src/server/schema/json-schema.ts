/**
 * zod v4 (classic or mini) → JSON Schema draft 2020-12, written for bundle size: zod's own
 * `z.toJSONSchema` carries a processor for every zod type and cannot be tree-shaken (about 7 KiB
 * gzip of the template's 48 KiB budget). This converter covers the types tool authors use and
 * gives output deep-equal to `z.toJSONSchema(schema, { target: 'draft-2020-12', io })`, which stays
 * the referee in test/unit/json-schema.test.ts. Called through `schema.ts` when a tool's or prompt's
 * definition is first needed (tool-entry.ts, registry.ts), never at registration.
 *
 * As in zod: a wrapper (optional, default, pipe…) is its inner schema with its own keywords on top;
 * metadata from `z.globalRegistry` (parents' included, as the registry returns it) overrides the
 * generated keywords; once every node is built, `anyOf` of bare types becomes a `type` list
 * (json-schema-rules.ts), as zod does. Anything else (intersections, dates, bigints, maps, sets,
 * files, functions, promises, lazy or recursive schemas, transforms on the described side, template
 * literals, custom, NaN, void, undefined, never, metadata `id`, base64 formats, numeric record
 * keys) throws with the fix: `{ jsonSchema }` for the tool, or zod's full generator through the
 * server's `jsonSchema` option. Intersections are left to zod for size: zod folds intersected
 * objects into one (pooling their keys, catchalls and closedness, distributing over a union), about
 * 0.56 KiB gzip of rules that few tool schemas need. This file is the walk (one node per schema
 * instance, recursion caught, metadata and wrappers merged, the finishing rules); each type's
 * keywords are json-schema-types.ts's.
 */
import * as z from 'zod/v4/mini'
import { compact, defOf, numericKey, transforms } from './json-schema-rules.ts'
import type { Json, Zod } from './json-schema-rules.ts'
import { TYPE_KEYWORDS } from './json-schema-types.ts'
import { Attached } from '../attached.ts'
import type { SchemaNode } from './json-schema-types.ts'

const DIALECT = 'https://json-schema.org/draft/2020-12/schema'

/** The error for what this converter leaves to zod, with the fix (an output can only be plugged). */
function unsupported(what: string, at: string, io: 'input' | 'output'): never {
  throw new Error(
    `${what} at ${at || '/'} has no JSON Schema in mcp-edge's built-in converter: ` +
      `${io === 'input' ? 'give the tool { jsonSchema } as its input instead, or ' : ''}plug zod's full generator: ` +
      `createMcpServer({ ..., jsonSchema: (schema, io) => z.toJSONSchema(schema, { target: 'draft-2020-12', io }) })`,
  )
}

/**
 * Convert a zod schema for what it accepts (`input`) or what it produces (`output`).
 *
 * @example
 * zodToJsonSchema(z.object({ city: z.string() }), 'input')
 * // { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object',
 * //   properties: { city: { type: 'string' } }, required: ['city'] }
 */
export function zodToJsonSchema(root: Zod, io: 'input' | 'output'): Json {
  const walk = new Walk(io)
  const node = walk.convert(root, '')
  walk.finish()
  return JSON.parse(JSON.stringify({ $schema: DIALECT, ...node }))
}

/** The node of each schema marked `keepsJsonSchema`, for each side, once made (`true`: marked, not made yet). */
const kept = {
  input: new Attached<Json | true>('mcp-edge.keptInputJsonSchema'),
  output: new Attached<Json | true>('mcp-edge.keptOutputJsonSchema'),
}

/**
 * Have the converter keep `schema`'s node once made, and use it as it is wherever the schema is
 * met again, in any later conversion: for a schema no code can reach to change (its metadata
 * included), such as mcp-edge/sdk's twins of zod 3 schemas shared between the servers a factory
 * builds per request (sdk/schema/zod3-shared.ts). Every conversion still returns its own copy.
 *
 * @example
 * const shared = keepsJsonSchema(z.object(properties))
 */
export function keepsJsonSchema<S extends Zod>(schema: S): S {
  for (const side of [kept.input, kept.output]) if (!side.has(schema)) side.set(schema, true)
  return schema
}

/** Whether `schema` is marked `keepsJsonSchema`. */
export const isKept = (schema: Zod): boolean => kept.input.has(schema)

/** One conversion's state: a node per schema instance (zod shares them), the path to the current one. */
class Walk {
  readonly #io: 'input' | 'output'
  readonly #done = new Map<Zod, Json>()
  /** Nodes kept from an earlier conversion (`keepsJsonSchema`): finished then, not this conversion's to change. */
  readonly #reused = new Set<Json>()
  /** Marked schemas whose nodes this conversion made, kept once it finishes. */
  readonly #toKeep: Zod[] = []
  /** The schemas being converted, outermost first: one met again is a recursion. */
  readonly #path: Zod[] = []
  /** Record keys, with where they are. */
  readonly #recordKeys: [Json, string][] = []

  constructor(io: 'input' | 'output') {
    this.#io = io
  }

  /** The node of `schema` at `at` (a JSON Pointer-like place, for error messages). */
  convert(schema: Zod, at: string): Json {
    const cached = this.#done.get(schema)
    if (cached) return cached
    const keeping = kept[this.#io].get(schema)
    if (keeping !== undefined && keeping !== true) {
      this.#done.set(schema, keeping)
      this.#reused.add(keeping)
      return keeping
    }
    if (keeping === true) this.#toKeep.push(schema)
    if (this.#path.includes(schema)) unsupported('a recursive schema', at, this.#io)
    this.#path.push(schema)
    const node = this.#node(schema, at)
    const keywords = TYPE_KEYWORDS.get(node.def.type) ?? node.fail(`zod type "${node.def.type}"`)
    const built = withOwnKeywords(node, keywords(node))
    this.#path.pop()
    this.#done.set(schema, built)
    return built
  }

  #node(schema: Zod, at: string): SchemaNode {
    const io = this.#io
    return {
      schema,
      def: defOf(schema),
      io,
      own: {},
      fail: (what) => unsupported(what, at, io),
      sub: (child, key) => this.convert(child, `${at}/${key}`),
      inner: (child) => this.convert(child, at),
      recordKey: (names) => void this.#recordKeys.push([names, at]),
    }
  }

  /** After every node is built, as zod does: a wrapper's own keywords (metadata) can stop these. */
  finish(): void {
    const nodes = new Set<unknown>([...this.#done.values()].filter((node) => !this.#reused.has(node)))
    for (const each of nodes) compact(each as Json, nodes)
    for (const [names, at] of this.#recordKeys) if (numericKey(names)) unsupported('a numeric record key', at, this.#io)
    for (const schema of this.#toKeep) kept[this.#io].set(schema, this.#done.get(schema) as Json)
  }
}

/**
 * A node's metadata from `z.globalRegistry` over its generated keywords, and, for a wrapper, its
 * own keywords first and winning over its inner node's, as zod orders them.
 */
function withOwnKeywords({ schema, io, own, fail }: SchemaNode, inner: Json | undefined): Json {
  const meta = z.globalRegistry.get(schema)
  if (meta?.id !== undefined) fail('metadata "id" (a $defs entry)')
  Object.assign(own, meta)
  if (io === 'input') {
    // A default or example of a transformed value is no input (looked for only where there is one).
    if (('default' in own || 'examples' in own) && transforms(schema)) {
      delete own.examples
      delete own.default
    }
    if ('_prefault' in own) own.default ??= own._prefault
  }
  delete own._prefault
  return inner ? Object.assign(own, inner, { ...own }) : own
}
