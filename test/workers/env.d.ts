declare namespace Cloudflare {
  interface Env {
    MCP_STATE_KEYS: string
    MCP_TASKS: DurableObjectNamespace<import('../fixture/worker.ts').McpTaskObjectType>
    MCP_NONCES: DurableObjectNamespace<import('../../src/cloudflare/nonce-ledger.ts').McpNonceLedger>
    MCP_EVENTS: DurableObjectNamespace<import('../../src/cloudflare/event-hub.ts').McpEventHub>
  }
}
