/**
 * What a zod 4 twin of a zod 3 schema (zod3.ts) changes in zod's own internals, where zod 4's
 * behaviour differs from zod 3's and no public option says it: an optional that answers
 * `undefined` before its schema runs, an object that keeps its shape's key order when parsed
 * asynchronously. zod copies a schema it refines or clones with its definition only, so each
 * change is kept with the schema (`patched`) and made again on its copies (`copied`). Both
 * wrap `_zod.parse` (and `_zod.run` when it is `parse`), which zod 4.0 (zod 3.25's) and 4.6 have alike.
 */
import * as z from 'zod/v4/mini'
import { Attached } from '../../server/attached.ts'
import { shapeOrdered } from '../../server/schema/schema.ts'
import type { Schema } from '../../server/schema/schema.ts'

/**
 * zod 3's optional: `undefined` is the answer before its schema runs, so a default, a catch or an
 * effect inside it (`.default(x).optional()`) never applies to a missing value. zod 4's optional
 * runs such a schema on `undefined` (a default, and in zod 4.0 a catch too), and in zod 4.6 takes
 * a default's "defaulted" rung, which has an object write the key: the twin's optional answers
 * `undefined` itself, is plainly optional, and leaves every other value to zod's. Its JSON Schema
 * is zod's (a default inside is advertised, as SDK 1.x advertised it).
 */
export function optional(inner: Schema): Schema {
  return patched(z.optional(inner), answersAbsent)
}

function answersAbsent(schema: Schema): void {
  wrapParse(schema, (parse) => (payload, ctx) => (payload.value === undefined ? payload : parse(payload, ctx)))
  Object.defineProperty(schema._zod, 'optin', { value: 'optional', writable: true, configurable: true })
}

/**
 * zod 3's object, asynchronously parsed: its keys in its shape's order, as zod 3 gives them (zod
 * 4 sets each key as its value settles, and a transform always settles late there).
 */
export function inShapeOrder(schema: Schema): void {
  const reorder = (payload: z.core.ParsePayload) => {
    payload.value = shapeOrdered(schema, payload.value)
    return payload
  }
  wrapParse(schema, (parse) => (payload, ctx) => {
    const out = parse(payload, ctx)
    return out instanceof Promise ? out.then(reorder) : out
  })
}

/** Replace a schema's parse with `wrap`'s (zod runs a schema without checks through `parse` itself). */
function wrapParse(schema: Schema, wrap: (parse: Parse) => Parse): void {
  const internals = schema._zod as unknown as { parse: Parse; run: Parse }
  const parse = internals.parse
  const wrapped = wrap(parse)
  if (internals.run === parse) internals.run = wrapped
  internals.parse = wrapped
}

/** The changes made to a twin's zod internals (`answersAbsent`, `inShapeOrder`), for its copies. */
const changes = new Attached<((schema: Schema) => void)[]>('mcp-edge.twinChanges')

/** `schema` changed by `change`, which its copies (`copied`) get too. */
export function patched(schema: Schema, change: (schema: Schema) => void): Schema {
  change(schema)
  changes.set(schema, [...(changes.get(schema) ?? []), change])
  return schema
}

/** A copy zod made of `from` (`.check()`, `.clone()`), with `from`'s changes: zod copies the definition, not them. */
export function copied<S extends Schema>(from: Schema, copy: S): S {
  for (const change of changes.get(from) ?? []) patched(copy, change)
  return copy
}

type Parse = (payload: z.core.ParsePayload, ctx: z.core.ParseContextInternal) => z.core.util.MaybeAsync<z.core.ParsePayload>
