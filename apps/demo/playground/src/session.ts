/**
 * The playground's connection: one `McpClient` for the endpoint in the page's form, with the
 * bearer token read on every request, and the client capabilities each request declares (form
 * and URL elicitation, partial results, MCP Apps' views, and the Tasks extension when the page's
 * checkbox says so).
 * Requests are stateless (2026-07-28): "connecting" only lists what the server offers.
 */
import { McpClient } from 'mcp-edge/client'
import { APP_MIME_TYPE, APPS_EXTENSION, TASKS_EXTENSION } from 'mcp-edge'
import { token } from './auth.ts'
import type { JsonObject } from './schema-form.ts'

export interface Session {
  client: McpClient
  endpoint: string
  /** This request's `clientCapabilities`; `tasks` declares the Tasks extension (or not) regardless of the checkbox. */
  capabilities(options?: { tasks?: boolean }): JsonObject
  /** A failed request: authentication problems open the sign-in help. */
  onError(error: unknown): void
  /** The server's tools as last listed, by name (views may call only those visible to them). */
  tools: Map<string, JsonObject>
}

export function createSession(endpoint: string, useTasks: () => boolean, onError: (error: unknown) => void): Session {
  return {
    endpoint,
    client: new McpClient({
      url: endpoint,
      clientInfo: { name: 'mcp-edge playground', version: '0.1.0' },
      token: () => token.get(),
    }),
    capabilities: (options = {}) => ({
      elicitation: { form: {}, url: {} },
      partialResults: {},
      extensions: {
        [APPS_EXTENSION]: { mimeTypes: [APP_MIME_TYPE] },
        ...((options.tasks ?? useTasks()) ? { [TASKS_EXTENSION]: {} } : {}),
      },
    }),
    onError,
    tools: new Map(),
  }
}
