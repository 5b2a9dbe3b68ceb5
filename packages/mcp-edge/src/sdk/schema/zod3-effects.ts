/**
 * zod 3's effects (refinements, transforms, preprocess) on a zod 4 twin (zod3.ts): each runs the
 * code zod 3 keeps, with a context that takes zod 3's `addIssue`, awaited when it returns a promise
 * and in zod 3's order.
 */
import * as z from 'zod/v4/mini'
import { Attached } from '../../server/attached.ts'
import type { Schema } from '../../server/schema/schema.ts'
import { copied } from './twin-changes.ts'
import type { Def } from './zod3-walk.ts'

/** What zod 3 hands a refinement or transform: `addIssue`, and the path (here always relative). */
interface Zod3Context {
  addIssue(issue: { message?: string; path?: (string | number)[]; fatal?: boolean }): void
  readonly path: (string | number)[]
}

/**
 * zod 3's effects on the twin of the schema they wrap: a refinement as a check, a transform
 * after it and a preprocess before it (zod 4's JSON Schema of a preprocessed input is its schema's,
 * as zod 3's converters gave it). An effect that returns a promise (`refine(async …)`) is awaited
 * as zod 4 awaits its own: the core parses such a schema asynchronously (server/schema/schema.ts
 * `parseMaybeAsync`), as SDK 1.x parses arguments with `safeParseAsync`.
 */
export function effect(def: Def, inner: Schema): Schema {
  const { type, refinement, transform } = def.effect
  if (type === 'refinement') {
    // A check makes a new schema: the metadata of the one it refines (a format, a description) goes with it.
    const check = (inner as z.ZodMiniType).check(
      z.check((payload) => {
        const run = () => {
          const out = refinement(payload.value, context(payload))
          return out instanceof Promise ? out.then(() => undefined) : undefined
        }
        // zod 4 runs a schema's checks without waiting for an earlier one's promise; zod 3 runs a
        // refinement once the one it wraps has settled, and none after a fatal issue.
        const earlier = pending.get(payload)
        const out = earlier ? earlier.then(() => (aborted(payload) ? undefined : run())) : run()
        if (out === undefined) return undefined
        pending.set(payload, out)
        return awaitable(out)
      }),
    )
    // A copy of the schema it refines: with that schema's changes (an optional's, an object's).
    const refined = copied(inner, check)
    const meta = z.globalRegistry.get(inner)
    return meta ? refined.register(z.globalRegistry, { ...meta }) : refined
  }
  const run = (value: unknown, payload: z.core.ParsePayload) => awaitable(transform(value, context(payload)))
  return type === 'preprocess' ? z.pipe(z.transform(run), inner) : z.pipe(inner, z.transform(run))
}

/** The last asynchronous zod 3 refinement of a parse, by its payload, which the next one waits for. */
const pending = new Attached<Promise<undefined>>('mcp-edge.zod3Pending')

/** Whether a parse has an issue that stops the checks after it (zod 3's `fatal`; zod 4's own rule). */
const aborted = (payload: z.core.ParsePayload) =>
  payload.issues.some((issue) => (issue as { continue?: boolean }).continue !== true)

/**
 * What a zod 3 effect returned, for zod 4 to await if it is a promise. A synchronous parse that
 * meets one stops there (zod 4 throws, and the core parses again asynchronously): the promise it
 * leaves must not fail unheard.
 */
function awaitable<T>(out: T): T {
  if (out instanceof Promise) out.catch(() => {})
  return out
}

/** The context zod 3 hands a refinement or transform: its `addIssue` adds to the zod 4 parse's issues. */
export function context(payload: z.core.ParsePayload): Zod3Context {
  return {
    addIssue: ({ message, path, fatal }) =>
      payload.issues.push({
        code: 'custom',
        message: message ?? 'Invalid input',
        path: path ?? [],
        input: payload.value,
        continue: fatal !== true,
      } as (typeof payload.issues)[number]),
    path: [],
  }
}
