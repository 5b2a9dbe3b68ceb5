/**
 * Register-time checks of the options TypeScript would refuse but JavaScript passes on (and so
 * does `wrangler dev`, which strips types without checking them): a tool without `input`, a
 * handler or completer that is no function, a shape of fields where a zod schema goes, a resource
 * without its `name`. Unchecked, such a registration is accepted and fails on first use, far from
 * its cause: the tool missing from `tools/list`, its calls answering -32603 with a TypeError in
 * the log. Called by the builder (tool-entry.ts, registry.ts) before anything is stored; each
 * message names the registration and what to write instead. What the types allow is not checked
 * again here (a zod schema with no JSON Schema still fails on first use: tool-entry.ts).
 */
import { isObject } from '../protocol/jsonrpc.ts'
import type { Schema } from './schema/schema.ts'

/** A zod v4 schema, classic or mini: every one carries its internals under `_zod`. */
export const isSchema = (value: unknown): value is Schema => isObject(value) && '_zod' in value

/**
 * What to write instead of `value` where a zod schema goes: a zod 3 schema (it has `_def`, no
 * `_zod`) needs zod 4, anything else is taken for a shape of fields.
 */
function schemaHint(value: unknown): string {
  return isObject(value) && '_def' in value
    ? "this is a zod 3 schema; mcp-edge reads zod 4: import * as z from 'zod' with zod 4 installed, or from 'zod/v4' with zod 3.25"
    : 'wrap a shape of fields in z.object({ ... })'
}

/**
 * A registration's options (its second argument) are an object and its handler (its last) a
 * function; `call` shows the registration's form, as the message's fix.
 */
export function checkArguments(what: string, options: unknown, handler: unknown, call: string): void {
  if (!isObject(options)) throw new Error(`${what}: the options must be an object: ${call}`)
  if (typeof handler !== 'function') throw new Error(`${what}: the handler must be a function: ${call}`)
}

/**
 * A tool's `input` (required) and `output` (optional): a zod schema or a function returning one;
 * an input may also be `{ jsonSchema }`.
 *
 * @example
 * checkToolSchemas('Tool "count_notes"', { description: 'How many notes' }) // throws: input is required
 */
export function checkToolSchemas(what: string, options: { input?: unknown; output?: unknown }): void {
  const { input, output } = options
  if (input === undefined || input === null) {
    throw new Error(`${what}: input is required; use z.object({}) for a tool without arguments`)
  }
  if (!isSchema(input) && typeof input !== 'function' && !(isObject(input) && 'jsonSchema' in input)) {
    throw new Error(
      `${what}: input must be a zod object schema, { jsonSchema }, or a function returning one; ${schemaHint(input)}`,
    )
  }
  if (output !== undefined && !isSchema(output) && typeof output !== 'function') {
    throw new Error(`${what}: output must be a zod schema or a function returning one; ${schemaHint(output)}`)
  }
}

/** A prompt's `args`, when given: a zod object schema. */
export function checkPromptArgs(what: string, args: unknown): void {
  if (args !== undefined && !isSchema(args)) throw new Error(`${what}: args must be a zod object schema; ${schemaHint(args)}`)
}

/** A resource's or resource template's `name`: required by MCP, what clients show for it. */
export function checkResourceName(what: string, options: { name?: unknown }): void {
  if (typeof options.name !== 'string') throw new Error(`${what}: name is required (a string clients show for it)`)
}

/** `options.complete`'s completers and a template's `list`, when given, are functions. */
export function checkCallbacks(what: string, options: { complete?: unknown; list?: unknown }): void {
  for (const [key, completer] of Object.entries(options.complete ?? {})) {
    if (typeof completer !== 'function') throw new Error(`${what}: complete.${key} must be a function (value, ctx) => string[]`)
  }
  if (options.list !== undefined && typeof options.list !== 'function') {
    throw new Error(`${what}: list must be a function (ctx) => Resource[]`)
  }
}
