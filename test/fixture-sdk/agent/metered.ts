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
