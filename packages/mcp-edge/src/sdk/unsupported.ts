/**
 * The SDK APIs that mcp-edge/sdk deliberately does not run, each refused when called, with an
 * error that says why and what to write instead (docs/migrate.md, "Not supported"). Read by
 * `McpServer` (server.ts); nothing here registers anything.
 */

/**
 * SDK 1.x `server.experimental.tasks`: `registerToolTask(name, config, { createTask, getTask,
 * getTaskResult })` keeps its tasks in the task store handed to the server, an in-memory one in
 * every published example, which a Worker's next request (another isolate) does not see. mcp-edge
 * runs the tool itself as a durable task instead.
 */
export const experimentalTasks = {
  tasks: {
    registerToolTask(name: string, ..._rest: unknown[]): never {
      throw new Error(
        `Tool "${name}": server.experimental.tasks.registerToolTask is not supported by mcp-edge/sdk: its createTask, ` +
          'getTask and getTaskResult keep tasks in a task store (in memory) that the next request, in another isolate, does not see. ' +
          "Register the tool with registerTool(name, { ...config, execution: { taskSupport: 'required' } }, handler) and return " +
          'its result from the handler: mcp-edge runs it as a durable task in the MCP_TASKS Durable Object (docs/migrate.md).',
      )
    },
  },
} as const

/**
 * SDK 2.x `server.server.createElicitationCompletionNotifier(elicitationId)`: mcp-edge asks a
 * 2025-era client a URL elicitation under an id of its own (the server-to-client request's; the
 * handler's `elicitationId` is not sent) and has no `notifications/elicitation/complete` to send on
 * the call's stream, so a notifier would name an id the client never saw.
 */
export function refuseCompletionNotifier(elicitationId: string): never {
  throw new Error(
    `server.server.createElicitationCompletionNotifier("${elicitationId}") is not supported by mcp-edge/sdk: ` +
      'mcp-edge asks a URL elicitation under an id of its own and sends no notifications/elicitation/complete; ' +
      "the client's answer to the elicitation ends it. Drop the notifier, or return inputRequired({ inputRequests: " +
      '{ …: inputRequired.elicitUrl(...) } }) (docs/migrate.md).',
  )
}

/**
 * SDK `server.server.setRequestHandler(method, handler)` for a method mcp-edge does not take from
 * code: its methods are the spec's, each answered by the core (server/methods/), and a custom
 * method has no place in its dispatch table.
 */
export function refuseRequestHandler(method: string): never {
  throw new Error(
    `setRequestHandler("${method}") is not supported by mcp-edge/sdk: mcp-edge answers the protocol's methods ` +
      'itself and serves no custom ones. Register tools, resources and prompts on an McpServer, or set the handlers ' +
      'of their lists, calls, reads and gets on a Server (resources/subscribe, resources/unsubscribe and ' +
      'logging/setLevel are called too; docs/migrate.md).',
  )
}
