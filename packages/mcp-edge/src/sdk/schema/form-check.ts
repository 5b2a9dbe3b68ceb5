/**
 * The check `elicitInput` makes of an accepted form, as SDK 1.x's `Server.elicitInput` and SDK
 * 2.x's `ctx.mcpReq.elicitInput` make it: content that does not match `requestedSchema` is an
 * `McpError` (-32602, "Elicitation response content does not match requested schema: …") thrown
 * in the handler, which a tool answers as an `isError` result. Code written for the SDKs relies on
 * it (`if (content.confirm)`, a count within its bounds).
 *
 * A JSON `requestedSchema` is the spec's flat subset (client/elicitation: strings with length
 * bounds, a format or an enum, numbers and integers with bounds, booleans, arrays of enum values;
 * the format, an annotation in JSON Schema 2020-12, is not checked),
 * so it is read as the zod object a user would write for it, and checked with zod as a zod
 * `requestedSchema` is; a keyword outside that subset checks nothing, as a general validator
 * would not refuse a value for a keyword it has no rule for either. (A general JSON Schema
 * validator would add some 6 KiB gzip to every Worker that imports the adapter, for rules no form
 * may use.) `inputRequired` answers are not checked, as SDK 2.x does not check them.
 */
import * as z from 'zod/v4/mini'
import { isObject } from '../../protocol/jsonrpc.ts'
import { summarizeIssues } from '../../server/schema/schema.ts'
import type { Schema } from '../../server/schema/schema.ts'
import { isZod } from './schema.ts'
import { ErrorCode, McpError } from '../errors.ts'
import type { ElicitParams, ElicitResult } from '../input.ts'

type Json = Record<string, unknown>

const number = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value)

/** An enum's values: `enum`, or the titled form's `oneOf`/`anyOf` of `const`s. */
function enumValues(schema: Json): string[] | undefined {
  if (Array.isArray(schema.enum)) return schema.enum.map(String)
  const options = Array.isArray(schema.oneOf) ? schema.oneOf : Array.isArray(schema.anyOf) ? schema.anyOf : undefined
  const values = options?.map((option) => (isObject(option) ? option.const : undefined))
  return values?.every((value) => value !== undefined) ? values.map(String) : undefined
}

/** A property's zod schema: its type, with the bounds and format the subset has. */
function property(schema: Json): z.ZodMiniType {
  const values = enumValues(schema)
  switch (schema.type) {
    case 'string': {
      if (values) return z.enum(values)
      // `format` is not checked: JSON Schema 2020-12 makes it an annotation, and the SDKs'
      // validators take values (an email with a `!`, a date-time with a space) zod's formats refuse.
      const checks: z.core.$ZodCheck<string>[] = []
      if (number(schema.minLength)) checks.push(z.minLength(schema.minLength))
      if (number(schema.maxLength)) checks.push(z.maxLength(schema.maxLength))
      return z.string().check(...checks)
    }
    case 'number':
    case 'integer': {
      const checks: z.core.$ZodCheck<number>[] = []
      if (number(schema.minimum)) checks.push(z.gte(schema.minimum))
      if (number(schema.maximum)) checks.push(z.lte(schema.maximum))
      return (schema.type === 'integer' ? z.int() : z.number()).check(...checks)
    }
    case 'boolean':
      return z.boolean()
    case 'array': {
      const items = isObject(schema.items) ? enumValues(schema.items) : undefined
      const checks: z.core.$ZodCheck<unknown[]>[] = []
      if (number(schema.minItems)) checks.push(z.minLength(schema.minItems))
      if (number(schema.maxItems)) checks.push(z.maxLength(schema.maxItems))
      return z.array(items ? z.enum(items) : z.unknown()).check(...checks)
    }
    default:
      return z.unknown()
  }
}

/** The zod object a JSON `requestedSchema` describes: its properties, the required ones required. */
function formSchema(requested: Json): Schema {
  const properties = isObject(requested.properties) ? requested.properties : {}
  const required = Array.isArray(requested.required) ? requested.required : []
  const shape = Object.fromEntries(
    Object.entries(properties).map(([name, schema]) => {
      const checked = isObject(schema) ? property(schema) : z.unknown()
      return [name, required.includes(name) ? checked : z.optional(checked)]
    }),
  )
  return z.looseObject(shape) as unknown as Schema
}

/**
 * The client's answer to a form, as `elicitInput` returns it: an accepted form's content checked
 * against the form's schema (zod or JSON), an `McpError` (-32602) when it does not match.
 *
 * @example
 * return checkedAnswer(params, await ask(elicitRequest(params)))
 */
export function checkedAnswer(params: ElicitParams, answer: ElicitResult): ElicitResult {
  if (params.mode === 'url' || answer.action !== 'accept' || !isObject(answer.content)) return answer
  const schema = isZod(params.requestedSchema) ? params.requestedSchema : formSchema(params.requestedSchema as Json)
  const parsed = z.safeParse(schema as z.ZodMiniType, answer.content, { reportInput: true })
  if (parsed.success) return answer
  throw new McpError(
    ErrorCode.InvalidParams,
    // Each issue spelled out as tool arguments' are (zod/mini alone says "Invalid input" until a
    // classic zod schema in the isolate has loaded zod's English messages).
    `Elicitation response content does not match requested schema: ${summarizeIssues(parsed.error.issues, answer.content)}`,
  )
}
