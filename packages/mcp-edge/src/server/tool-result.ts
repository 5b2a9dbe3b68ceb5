/**
 * Shaping what a tool returns: argument failures as `isError` results (SEP-1303), the final
 * result checked against the output schema and mirrored as text, and text the tool streamed
 * assembled into the final content. Shared by direct calls and task runs.
 */
import { McpError } from '../protocol/errors.ts'
import { isObject } from '../protocol/jsonrpc.ts'
import type { CallToolResult, ContentBlock } from '../protocol/types.ts'
import type { ToolEntry } from './tool-entry.ts'
import { parseMaybeAsync } from './schema/schema.ts'
import type { Parsed, Schema } from './schema/schema.ts'

type ParsedArguments = { ok: true; value: unknown } | { ok: false; result: CallToolResult }

/**
 * The arguments, parsed; or the `isError` result that tells the model what is wrong. A promise
 * only for a schema with an `async` refinement (`parseMaybeAsync`).
 */
export function parseArguments(tool: ToolEntry, args: Record<string, unknown>): ParsedArguments | Promise<ParsedArguments> {
  if (!tool.input) return { ok: true, value: args }
  const answer = (parsed: Parsed<Schema>): ParsedArguments =>
    parsed.ok ? parsed : { ok: false, result: toolError(`Invalid arguments for tool ${tool.name}: ${parsed.message}`) }
  const parsed = parseMaybeAsync(tool.input, args)
  return parsed instanceof Promise ? parsed.then(answer) : answer(parsed)
}

export function toolError(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true }
}

/**
 * Validate and complete a tool's result: assembled stream text, output schema, text mirror. A
 * promise only when the output schema has an `async` refinement (`parseMaybeAsync`).
 */
export function finishResult(
  tool: ToolEntry,
  result: CallToolResult,
  assembled: ContentBlock[] | undefined,
): CallToolResult | Promise<CallToolResult> {
  if (!isObject(result) || !Array.isArray(result.content)) {
    throw new Error(`Tool "${tool.name}" returned something that is not a CallToolResult`)
  }
  const content = assembled ? [...mergeText(assembled), ...result.content] : result.content
  if (!tool.output || result.isError === true) return completed(result, content, false)
  if (tool.outputChecked) return completed(result, content, true)
  const checked = parseMaybeAsync(tool.output, result.structuredContent)
  const verdict = (parsed: Parsed<Schema>) => {
    if (!parsed.ok) {
      throw new McpError('internalError', `Tool ${tool.name} returned structuredContent that does not match its outputSchema`)
    }
    return completed(result, content, true)
  }
  return checked instanceof Promise ? checked.then(verdict) : verdict(checked)
}

/** `result` with `content`, and (`mirror`) its structured content as text when no text block says it. */
function completed(result: CallToolResult, content: ContentBlock[], mirror: boolean): CallToolResult {
  // server/tools.mdx: a tool that returns structured content SHOULD also return it as text.
  const mirrored =
    mirror && result.structuredContent !== undefined && !content.some((block) => block.type === 'text')
      ? [...content, { type: 'text' as const, text: JSON.stringify(result.structuredContent) }]
      : content
  return mirrored === result.content ? result : { ...result, content: mirrored }
}

function mergeText(blocks: ContentBlock[]): ContentBlock[] {
  const out: ContentBlock[] = []
  for (const block of blocks) {
    const last = out.at(-1)
    if (block.type === 'text' && last?.type === 'text' && last.annotations === undefined && block.annotations === undefined) {
      out[out.length - 1] = { type: 'text', text: last.text + block.text }
    } else out.push(block)
  }
  return out
}
