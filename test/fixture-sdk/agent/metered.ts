/**
 * An `McpServer` subclass that meters its tools, in the style of the shared server class most of
 * Cloudflare's own `McpAgent` apps were built on (mcp-server-cloudflare before it moved to zod 4):
 * it wraps `tool()` to count each call and its failures, reads the client in `oninitialized`, and
 * hears errors through `onerror`. Only the import lines differ from SDK 1.x code (`// was:`).
 */
import { McpServer } from 'mcp-edge/sdk' // was: @modelcontextprotocol/sdk/server/mcp.js
import type { ToolCallback } from 'mcp-edge/sdk' // was: @modelcontextprotocol/sdk/server/mcp.js
import type { RequestHandlerExtra } from 'mcp-edge/sdk' // was: @modelcontextprotocol/sdk/shared/protocol.js
import type { ServerNotification, ServerRequest } from 'mcp-edge/sdk' // was: @modelcontextprotocol/sdk/types.js
import type { LoggingLevel, ProgressToken, TextContent } from 'mcp-edge/sdk' // was: @modelcontextprotocol/sdk/types.js
import { ErrorCode, McpError } from 'mcp-edge/sdk' // was: @modelcontextprotocol/sdk/types.js
import type { ZodRawShape } from 'zod/v3'

export class MeteredServer extends McpServer {
  readonly calls = new Map<string, { ok: number; failed: number }>()
  clients = 0
  errors = 0

  constructor(serverInfo: { name: string; version: string }) {
    super(serverInfo)
    this.server.oninitialized = () => {
      if (this.server.getClientVersion()) this.clients++
    }
    this.server.onerror = () => {
      this.errors++
    }
    this.server.onclose = () => {}
    const tool = this.tool.bind(this)
    this.tool = (name: string, ...rest: unknown[]): ReturnType<typeof this.tool> => {
      const callback = rest[rest.length - 1] as ToolCallback<ZodRawShape | undefined>
      const metered: ToolCallback<ZodRawShape | undefined> = async (args, extra) => {
        const count = this.calls.get(name) ?? { ok: 0, failed: 0 }
        this.calls.set(name, count)
        try {
          const result = await callback(
            args as { [key: string]: unknown } & RequestHandlerExtra<ServerRequest, ServerNotification>,
            extra,
          )
          count.ok++
          return result
        } catch (error) {
          count.failed++
          throw error
        }
      }
      rest[rest.length - 1] = metered
      // @ts-ignore the SDK's overloads take the rest as given
      return tool(name, ...rest)
    }
  }
}

/** What a handler annotated with SDK 1.x's types reads: the progress token, as the SDK types it. */
function describeCall(token: ProgressToken | undefined, level: LoggingLevel, code: ErrorCode): TextContent {
  return { type: 'text', text: `token ${token ?? 'none'}, level ${level}, code ${code}` }
}

/** A handler written apart from its registration, annotated as SDK 1.x code annotates it. */
export async function describeRequest(
  args: { level: LoggingLevel },
  extra: RequestHandlerExtra<ServerRequest, ServerNotification>,
): Promise<{ content: TextContent[] }> {
  if (args.level === 'emergency') throw new McpError(ErrorCode.InvalidParams, 'not that one')
  return { content: [describeCall(extra._meta?.progressToken, args.level, ErrorCode.InvalidParams)] }
}
