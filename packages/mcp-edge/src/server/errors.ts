/**
 * Turning anything a handler throws into the `error` of a JSON-RPC response. Protocol errors
 * (`McpError`) pass through; anything else is logged and becomes a bare -32603, so no stack or
 * message leaks to the client (STYLE: errors).
 */
import { ERROR_KINDS, isMcpError } from '../protocol/errors.ts'
import type { JsonRpcErrorObject } from '../protocol/errors.ts'
import { errorFields, libraryLog } from './telemetry/log.ts'

export function toErrorObject(error: unknown, context: string): JsonRpcErrorObject {
  if (isMcpError(error)) return error.toJSON()
  libraryLog.error('request failed', { method: context, ...errorFields(error) })
  return { code: ERROR_KINDS.internalError.code, message: ERROR_KINDS.internalError.message }
}

/**
 * Throw from a tool handler to answer with an `isError: true` result carrying `message` (a tool
 * execution error, which the model sees), instead of a protocol error.
 *
 * @example
 * if (!user) throw new ToolError(`No user called ${name}`)
 */
export class ToolError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'ToolError'
  }
}

/**
 * A deployment that cannot serve as configured: a secret that is missing or malformed, a binding
 * that is not bound. Its message names what is wrong and the command that fixes it, and holds no
 * secret value, so `mcp()` answers every request with it (500, -32603) until it is fixed.
 *
 * @example
 * if (!env.API_KEY) throw new ConfigurationError('API_KEY is not set: npx wrangler secret put API_KEY')
 */
export class ConfigurationError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'ConfigurationError'
  }
}
