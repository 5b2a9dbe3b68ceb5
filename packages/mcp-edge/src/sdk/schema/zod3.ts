/**
 * zod 3 schemas (`zod@3`, or `zod/v3`), which SDK 1.x takes beside zod 4 and which most servers
 * written for `McpAgent` still use, read as their zod 4 twins: each zod 3 node is rebuilt, once,
 * as the zod 4 (mini) node a user converting by hand would write (same type, checks, messages,
 * wrappers, description). The core then validates and converts the twin as any zod 4 schema, so
 * a tool advertises the JSON Schema its zod 4 equivalent would, and validates by zod 4's rules.
 *
 * What zod 3 keeps in functions is called, not rebuilt: a refinement (`refine`, `superRefine`)
 * runs as a zod 4 check, a `transform` or `preprocess` as a zod 4 transform on the same side of
 * its schema, a `catch` as zod 4's, each with a context that takes zod 3's `addIssue`; a
 * string format is checked by zod 3 itself. Only the kinds a tool's JSON Schema can be made of
 * here have twins (the core's converter refuses the others in zod 4 too: dates, bigints, maps,
 * sets, intersections, lazy schemas, functions); the others are refused at registration, naming
 * where they are, rather than at the first `tools/list`. zod is never imported here for zod 3:
 * the nodes are read from their `_def`, which every zod 3 release (3.20 on, and `zod/v3` of zod 4)
 * shapes alike. Only zod/mini functions that zod 3.25's `zod/v4` (zod 4.0) has are used: its mini
 * has no `superRefine`, so issues are added to the parse's payload directly (`context`).
 * What registration checks without building is in zod3-walk.ts, the effects in zod3-effects.ts,
 * the changes to zod's internals in twin-changes.ts.
 */
import * as z from 'zod/v4/mini'
import type { Schema } from '../../server/schema/schema.ts'
import { keepsJsonSchema } from '../../server/schema/json-schema.ts'
import { Attached } from '../../server/attached.ts'
import { copied, inShapeOrder, optional, patched } from './twin-changes.ts'
import { context, effect } from './zod3-effects.ts'
import { SharedKeys, SharedTwins } from './zod3-shared.ts'
import { noNumberTwin, notTaken } from './zod3-walk.ts'
import type { Check, Def, Zod3Schema } from './zod3-walk.ts'

// On the nodes themselves, not in WeakMaps (server/attached.ts): a server built per request builds them per request.
const twins = new Attached<Schema>('mcp-edge.zod4Twin')
/** Whether a schema is some zod 3 node's twin: one is not another's to describe (`withMeta`). */
const twinned = new Attached<true>('mcp-edge.zod3Twin')

/**
 * The zod 4 twin of a zod 3 schema (the same twin for the same node, and for equal nodes made of
 * data alone: zod3-shared.ts); `at` is where the schema is, for errors.
 *
 * @example
 * twin(z3.object({ city: z3.string().min(1) })) // z.object({ city: z.string().check(z.minLength(1)) })
 */
export function twin(schema: Zod3Schema, at = ''): Schema {
  return twinOf(schema, at, new SharedKeys())
}

/** Twins of nodes made of data alone, by key (zod3-shared.ts); and of such nodes as object properties. */
export const sharedTwins = new SharedTwins()
export const sharedProperties = new SharedTwins()

function twinOf(schema: Zod3Schema, at: string, keys: SharedKeys): Schema {
  const convert = (node: Zod3Schema, at: string): Schema => {
    const done = twins.get(node)
    if (done) return done
    // An equal node's twin, where the node is data alone.
    const key = keys.of(node)
    let made = key === undefined ? undefined : sharedTwins.get(key)
    if (made === undefined) {
      made = build(node, at, convert, property)
      // Shared: no code reaches it to change it, so its JSON Schema is kept once made.
      if (key !== undefined) sharedTwins.set(key, keepsJsonSchema(made), keys.weightOf(node))
    }
    twins.set(node, made)
    // A brand's twin is its schema's, and equal nodes share one.
    if (!twinned.has(made)) twinned.set(made, true)
    return made
  }
  // An object's properties in the same build: their keys are read once.
  const property = (node: Zod3Schema, at: string) => twinProperty(node, at, keys)
  return convert(schema, at)
}

/**
 * A twin's description, and a string's format, as metadata (`z.describe` is zod/mini's from
 * 4.1.13 only). A schema that is already another node's twin (a brand's) is cloned first, so the
 * metadata stays this node's.
 */
function withMeta(schema: Schema, description: string | undefined, format?: string): Schema {
  const meta = { ...(description === undefined ? {} : { description }), ...(format === undefined ? {} : { format }) }
  if (Object.keys(meta).length === 0) return schema
  const own = (twinned.has(schema) ? copied(schema, (schema as z.ZodMiniType).clone()) : schema) as z.ZodMiniType
  return own.register(z.globalRegistry, { ...z.globalRegistry.get(schema), ...meta })
}

type Convert = (node: Zod3Schema, at: string) => Schema

/** A message given to a zod 3 check, as zod 4's params. */
/**
 * A zod 3 check's params as zod 4's: its own message, else the schema's error map (`typeError`),
 * which zod 3 asks for a check's issue too (zod 4.6 asks the schema's own for its checks; zod 4.0,
 * which zod 3.25 carries, asks only the check's).
 */
type Params = { error: string | ((issue: z.core.$ZodRawIssue) => string | undefined) } | undefined
const says = (check: { message?: string } | null | undefined, schema?: Params): Params =>
  check?.message === undefined ? schema : { error: check.message }

/** The zod 4 twin of one zod 3 schema, described as it is; its children through `convert`. */
function build(node: Zod3Schema, at: string, convert: Convert, property: Convert): Schema {
  const def = node._def as Def
  if (def.typeName === 'ZodString') return string(node, def)
  return withMeta(kind(def, at, convert, property), def.description)
}

/** zod 3's name of a value's type (its `ZodParsedType`), which its error maps read as `received`. */
function parsedType(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  if (typeof value === 'number') return Number.isNaN(value) ? 'nan' : 'number'
  return typeof value
}

/** What zod 3 calls the issue zod 4 raised, by the kind of schema (zod 4 says `invalid_value` for all three). */
function zod3Code(typeName: string, issue: z.core.$ZodRawIssue): string {
  if (issue.code !== 'invalid_value') return issue.code
  const type = typeof issue.input
  if (typeName === 'ZodLiteral') return 'invalid_literal'
  if (typeName === 'ZodEnum' && type !== 'string') return 'invalid_type'
  if (typeName === 'ZodNativeEnum' && type !== 'string' && type !== 'number') return 'invalid_type'
  return 'invalid_enum_value'
}

/**
 * zod 3's messages for a value of the wrong type or none (`invalid_type_error`, `required_error`,
 * `message`, or an `errorMap`, which zod 3 keeps as one function), as zod 4's `error` param: the
 * map is asked as zod 3 asks it (its issue codes, `received`, a default text); an answer that is
 * the default text leaves the message to zod 4 and the runtime.
 */
function typeError(def: Def): { error: (issue: z.core.$ZodRawIssue) => string | undefined } | undefined {
  const map = def.errorMap as ((issue: object, ctx: object) => { message?: string } | undefined) | undefined
  if (typeof map !== 'function') return undefined
  // Not `def` itself: a shared twin would keep its first node's children alive through it.
  const typeName = def.typeName as string
  return {
    error: (issue) => {
      const received = parsedType(issue.input)
      const expected = (issue as { expected?: string }).expected
      const fallback =
        received === 'undefined'
          ? 'Required'
          : issue.code === 'invalid_type' && expected
            ? `Expected ${expected}, received ${received}`
            : 'Invalid input'
      const code = zod3Code(typeName, issue)
      const message = map({ ...issue, code, received }, { data: issue.input, defaultError: fallback })?.message
      return message === fallback ? undefined : message
    },
  }
}

/** The zod 4 twin of one zod 3 definition of any kind but a string. */
function kind(def: Def, at: string, convert: Convert, property: Convert): Schema {
  const child = (node: Zod3Schema, key: string) => convert(node, `${at}/${key}`)
  const same = (node: Zod3Schema) => convert(node, at)
  const params = typeError(def)
  switch (def.typeName) {
    case 'ZodNumber':
      return numberLike(def.coerce ? z.coerce.number(params) : z.number(params), def.checks, params)
    case 'ZodBoolean':
      return def.coerce ? z.coerce.boolean(params) : z.boolean(params)
    case 'ZodNull':
      return z.null(params)
    case 'ZodAny':
      return z.any()
    case 'ZodUnknown':
      return z.unknown()
    case 'ZodNever':
      return z.never()
    case 'ZodLiteral':
      return z.literal(def.value, params)
    case 'ZodEnum':
      return z.enum(def.values, params)
    case 'ZodNativeEnum':
      return z.nativeEnum(def.values, params)
    case 'ZodArray': {
      const bounds = [
        def.minLength && z.minLength(def.minLength.value, says(def.minLength, params)),
        def.maxLength && z.maxLength(def.maxLength.value, says(def.maxLength, params)),
        def.exactLength && z.length(def.exactLength.value, says(def.exactLength, params)),
      ]
      return z.array(child(def.type, 'items'), params).check(...bounds.filter(Boolean))
    }
    case 'ZodObject':
      return object(def, at, child, params, property)
    case 'ZodUnion':
      return z.union(
        def.options.map((option: Zod3Schema, i: number) => child(option, `anyOf/${i}`)),
        params,
      )
    case 'ZodDiscriminatedUnion':
      return z.discriminatedUnion(
        def.discriminator,
        def.options.map((option: Zod3Schema, i: number) => child(option, `oneOf/${i}`)),
        params,
      )
    case 'ZodTuple': {
      const items = def.items.map((item: Zod3Schema, i: number) => child(item, `prefixItems/${i}`))
      return def.rest ? z.tuple(items, child(def.rest, 'items'), params) : z.tuple(items, params)
    }
    case 'ZodRecord': {
      const key = child(def.keyType, 'propertyNames') as z.core.$ZodRecordKey
      // A zod 3 record with keys of a finite set (an enum, literals) takes some of them; zod 4's
      // `record` would want them all.
      const partial = key._zod.values !== undefined
      return (partial ? z.partialRecord : z.record)(key, child(def.valueType, 'additionalProperties'), params)
    }
    case 'ZodOptional':
      return optional(same(def.innerType))
    case 'ZodNullable':
      return z.nullable(same(def.innerType))
    case 'ZodDefault':
      // zod 3 parses its default as a value given, which is zod 4's prefault (its default is the output).
      return z.prefault(same(def.innerType), def.defaultValue)
    case 'ZodCatch':
      return z.catch(same(def.innerType), fallback(def.catchValue))
    case 'ZodReadonly':
      return z.readonly(same(def.innerType))
    case 'ZodBranded':
      return same(def.type)
    case 'ZodPipeline':
      return z.pipe(same(def.in), same(def.out))
    case 'ZodEffects':
      return effect(def, same(def.schema))
    default:
      throw notTaken(def, at)
  }
}

/**
 * A zod 3 string: its bounds, affixes, patterns and case changes as zod 4's checks, in their
 * order; its formats checked by zod 3 itself (each alone, in its place), which is exact and brings
 * none of zod 4's format schemas (some 3 KiB gzip), and advertised as SDK 1.x advertised them.
 */
function string(node: Zod3Schema, def: Def): Schema {
  let format: string | undefined
  const schema = typeError(def)
  const checks = (def.checks as Check[]).map((check) => {
    const params = says(check, schema)
    switch (check.kind) {
      case 'min':
        return z.minLength(check.value, params)
      case 'max':
        return z.maxLength(check.value, params)
      case 'length':
        return z.length(check.value, params)
      case 'regex':
        return z.regex(check.regex, params)
      case 'includes':
        return z.includes(check.value, { ...params, position: check.position })
      case 'startsWith':
        return z.startsWith(check.value, params)
      case 'endsWith':
        return z.endsWith(check.value, params)
      case 'trim':
        return z.trim()
      case 'toLowerCase':
        return z.toLowerCase()
      case 'toUpperCase':
        return z.toUpperCase()
      default:
        format =
          FORMATS[check.kind === 'ip' || check.kind === 'cidr' ? `${check.kind}${check.version ?? ''}` : check.kind] ?? format
        return byZod3(node, def, check)
    }
  })
  const base = def.coerce ? z.coerce.string(schema) : z.string(schema)
  return withMeta(checks.length === 0 ? base : base.check(...checks), def.description, format)
}

/** zod 3's string formats as zod-to-json-schema (SDK 1.x) advertised them; the others have none. */
const FORMATS: Record<string, string> = {
  email: 'email',
  url: 'uri',
  uuid: 'uuid',
  datetime: 'date-time',
  date: 'date',
  time: 'time',
  duration: 'duration',
  ipv4: 'ipv4',
  ipv6: 'ipv6',
}

/** One zod 3 string check, run by zod 3: a string schema of its class with that check alone. */
function byZod3(node: Zod3Schema, def: Def, check: Check): z.core.$ZodCheck<string> {
  const Class = node.constructor as new (def: Def) => { safeParse(value: unknown): Zod3Result }
  // Made at the first check, not with the twin: a list builds every tool's twin and checks nothing.
  let alone: InstanceType<typeof Class> | undefined
  return z.check<string>((payload) => {
    alone ??= new Class({ ...def, checks: [check], coerce: false, description: undefined })
    const parsed = alone.safeParse(payload.value)
    const ctx = context(payload)
    for (const issue of parsed.success ? [] : parsed.error.issues) ctx.addIssue({ message: issue.message })
  })
}

/** What a zod 3 `safeParse` answers, as far as it is read here. */
type Zod3Result = { success: true } | { success: false; error: { issues: { message: string }[] } }

/** A number's, bigint's or date's bounds (zod 3 keeps `inclusive` on `min`/`max`). */
function numberLike<S extends z.ZodMiniType>(base: S, checks: Check[], schema: Params): S {
  const twins = checks.flatMap((check): z.core.$ZodCheck<unknown>[] => {
    const params = says(check, schema)
    switch (check.kind) {
      case 'min':
        return [check.inclusive === false ? z.gt(check.value, params) : z.gte(check.value, params)]
      case 'max':
        return [check.inclusive === false ? z.lt(check.value, params) : z.lte(check.value, params)]
      case 'multipleOf':
        return [z.multipleOf(check.value, params)]
      // zod 4's int (safe integers) as a check, where zod 3's was Number.isInteger.
      case 'int':
        return [z.int(params) as z.core.$ZodCheck<unknown>]
      // zod 4's numbers are finite already.
      case 'finite':
        return []
      default:
        throw noNumberTwin(check)
    }
  })
  return twins.length === 0 ? base : (base.check as (...checks: z.core.$ZodCheck<unknown>[]) => S)(...twins)
}

/**
 * zod 3's catch fallback, for zod 4's: given zod 3's context (an error with `issues`, `errors` and
 * `message`, and the input). Asked with no context, which is how the core's converter reads a
 * catch's `default`, it answers nothing: SDK 1.x advertised none, and a fallback that reads its
 * context would fail the tool's listing.
 */
function fallback(catchValue: (ctx: object) => unknown) {
  return (ctx?: { error: { issues: unknown[] }; input: unknown }) => {
    if (ctx === undefined) return undefined
    const { issues } = ctx.error
    return catchValue({ error: { issues, errors: issues, message: JSON.stringify(issues, null, 2) }, input: ctx.input })
  }
}

/**
 * An object property's twin, optional where zod 3 takes the key as optional: where its schema
 * takes `undefined` (zod 3's `isOptional()`, asked as zod-to-json-schema asks it for SDK 1.x, a
 * throw read as yes). zod 4 wants an object's keys present unless the schema is optional. Its
 * `optional` skips the schema for a missing key, where zod 3 runs it on `undefined`: a transform
 * of such a key (`unknown().transform((v) => v ?? [])`) does not run when the key is missing.
 */
export function twinProperty(node: Zod3Schema, at: string, keys = new SharedKeys()): Schema {
  const made = twinOf(node, at, keys)
  // Optional already (zod 4.6 says 'defaulted' of a default, where 4.0 says 'optional').
  if (made._zod.optin !== undefined) return made
  // Asking zod 3 runs a parse: an equal node's answer is this one's.
  const key = keys.of(node)
  const shared = key === undefined ? undefined : sharedProperties.get(key)
  if (shared !== undefined) return shared
  let optional: boolean
  try {
    optional = (node as { isOptional?: () => boolean }).isOptional?.() === true
  } catch {
    optional = true
  }
  const property = optional ? z.optional(made) : made
  if (key !== undefined) sharedProperties.set(key, keepsJsonSchema(property), keys.weightOf(node))
  return property
}

function object(
  def: Def,
  at: string,
  child: (node: Zod3Schema, key: string) => Schema,
  params: ReturnType<typeof typeError>,
  property: Convert,
): Schema {
  const given = def.shape() as Record<string, Zod3Schema>
  const shape = Object.fromEntries(Object.entries(given).map(([key, node]) => [key, property(node, `${at}/properties/${key}`)]))
  const made =
    def.unknownKeys === 'strict'
      ? z.strictObject(shape, params)
      : def.unknownKeys === 'passthrough'
        ? z.looseObject(shape, params)
        : z.object(shape, params)
  // zod 3 keeps `never` as the catchall of an object without one.
  const whole = def.catchall?._def?.typeName === 'ZodNever' ? made : z.catchall(made, child(def.catchall, 'additionalProperties'))
  return patched(whole, inShapeOrder)
}
