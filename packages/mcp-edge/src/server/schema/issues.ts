/**
 * Readable messages for zod issues that carry only zod's generic "Invalid input". zod/mini ships
 * no locale (classic zod loads its English one when imported), so with zod/mini alone a tool's
 * argument error read "b: Invalid input", which a model calling the tool cannot correct its call
 * from. Such a message is rebuilt from the issue's own fields (`code`, `expected`, `values`,
 * `minimum`, `maximum`, `keys`…) and the received type from the value zod checked (the issue's
 * `input`, with `reportInput`; else the value at the issue's path), in
 * classic zod's English words, so a server reads much the same whichever zod it imports (a
 * string format is named as zod names it, `Invalid datetime` where classic zod's English says
 * `Invalid ISO datetime`: `formatMessage`). Any other
 * message (classic zod's, a schema's own) is kept as given. Called by `summarizeIssues`
 * (schema.ts); it imports no locale, which would cost every Worker the whole table.
 */
import type * as z from 'zod/v4/mini'

type Issue = z.core.$ZodIssue

/** zod's message when neither the schema nor a locale gives one. */
const GENERIC = 'Invalid input'

/** What zod counts in a sized value, by the issue's `origin`. */
const UNITS: Record<string, string> = { string: 'characters', array: 'items', set: 'items', map: 'entries', file: 'bytes' }

/**
 * The issue's message, rebuilt when it is zod's generic one; `input` is the value parsed (the
 * issue's path leads into it).
 *
 * @example
 * issueMessage({ code: 'invalid_type', expected: 'number', path: ['b'], message: 'Invalid input' }, { b: 'x' })
 * // 'Invalid input: expected number, received string'
 */
export function issueMessage(issue: Issue, input: unknown): string {
  if (issue.message !== GENERIC) return issue.message
  // The value zod checked, when parsed with `reportInput` (after a transform or `z.coerce`); else the one sent.
  return described(issue, 'input' in issue ? issue.input : valueAt(input, issue.path)) ?? GENERIC
}

function described(issue: Issue, value: unknown): string | undefined {
  switch (issue.code) {
    case 'invalid_type':
      return `Invalid input: expected ${issue.expected}, received ${typeName(value)}`
    case 'invalid_value':
      return issue.values.length === 1
        ? `Invalid input: expected ${shown(issue.values[0])}`
        : `Invalid option: expected one of ${issue.values.map(shown).join('|')}`
    case 'too_small':
    case 'too_big':
      return sized(issue)
    case 'invalid_format':
      return formatMessage(issue)
    case 'not_multiple_of':
      return `Invalid number: must be a multiple of ${issue.divisor}`
    case 'unrecognized_keys':
      return `Unrecognized key${issue.keys.length > 1 ? 's' : ''}: ${issue.keys.map(shown).join(', ')}`
    case 'invalid_union':
      return unionMessage(issue.errors, value)
    case 'invalid_key':
    case 'invalid_element':
      return `Invalid ${issue.code === 'invalid_key' ? 'key' : 'value'} in ${issue.origin}`
    default:
      return undefined
  }
}

/**
 * "Invalid string: must start with "sk_"", "Invalid email": the value a string must contain, or
 * the format's name as zod gives it (classic zod's English has nouns for them, "email address",
 * which would cost every Worker a table for little a model calling the tool could not read).
 */
function formatMessage(issue: z.core.$ZodIssueInvalidStringFormat): string {
  const { format } = issue
  const fields = issue as { prefix?: string; suffix?: string; includes?: string }
  if (format === 'starts_with') return `Invalid string: must start with "${fields.prefix}"`
  if (format === 'ends_with') return `Invalid string: must end with "${fields.suffix}"`
  if (format === 'includes') return `Invalid string: must include "${fields.includes}"`
  if (format === 'regex' && issue.pattern !== undefined) return `Invalid string: must match pattern ${issue.pattern}`
  return `Invalid ${format}`
}

/** "Too small: expected string to have >=2 characters", "Too big: expected number to be <=10". */
function sized(issue: z.core.$ZodIssueTooSmall | z.core.$ZodIssueTooBig): string {
  const small = issue.code === 'too_small'
  const bound = small ? (issue as z.core.$ZodIssueTooSmall).minimum : (issue as z.core.$ZodIssueTooBig).maximum
  const relation = issue.exact ? 'exactly ' : `${small ? '>' : '<'}${issue.inclusive ? '=' : ''}`
  const unit = UNITS[issue.origin]
  const measure = unit === undefined ? `to be ${relation}${bound}` : `to have ${relation}${bound} ${unit}`
  return `${small ? 'Too small' : 'Too big'}: expected ${issue.origin} ${measure}`
}

/** A union of plain types names them ("expected string | number, received boolean"); other unions stay generic. */
function unionMessage(options: readonly (readonly Issue[])[], value: unknown): string | undefined {
  const expected = options.map((issues) => {
    const [only] = issues
    return issues.length === 1 && only?.code === 'invalid_type' && only.path.length === 0 ? only.expected : undefined
  })
  if (expected.length === 0 || expected.includes(undefined)) return undefined
  return `Invalid input: expected ${expected.join(' | ')}, received ${typeName(value)}`
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input
  for (const key of path)
    value = typeof value === 'object' && value !== null ? (value as Record<PropertyKey, unknown>)[key] : undefined
  return value
}

/** The received type in zod's words: JSON's types, with array, null and NaN told apart. */
function typeName(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  if (typeof value === 'number' && Number.isNaN(value)) return 'NaN'
  return typeof value
}

/** A value as zod shows one in a message: strings quoted, the rest as they print. */
const shown = (value: unknown) => (typeof value === 'string' ? `"${value}"` : String(value))
