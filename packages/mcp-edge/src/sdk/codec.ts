/**
 * SDK 2.x's `createRequestStateCodec`: a handler's own `requestState`, minted with `mint` and read
 * back through the server's `requestState.verify`. On mcp-edge the handler's state travels inside
 * mcp-edge's own sealed `requestState` (HMAC-SHA-256 or AES-GCM with `MCP_STATE_KEYS`, bound to
 * the caller, method, target and arguments, with an expiry), so this codec only serializes: the
 * seal around it gives the integrity, binding and expiry the SDK's codec gives. The key is still
 * checked as the SDK checks it, so code that runs here runs there.
 */
import type { RequestHandlerExtra } from './context.ts'

export interface RequestStateCodecOptions {
  /** The SDK's HMAC secret: at least 32 bytes (the SDK refuses shorter ones, and so does this). */
  key: Uint8Array | string
  ttlSeconds?: number
  bind?: (ctx: RequestHandlerExtra) => string
}

export interface RequestStateCodec<T = unknown> {
  mint(payload: T, ctx?: RequestHandlerExtra): Promise<string>
  verify(state: string, ctx: RequestHandlerExtra): Promise<T>
}

const MIN_KEY_BYTES = 32

/**
 * @example
 * const codec = createRequestStateCodec<{ step: number }>({ key: env.REQUEST_STATE_SECRET })
 * new McpServer(info, { requestState: { verify: codec.verify } })
 */
export function createRequestStateCodec<T = unknown>(options: RequestStateCodecOptions): RequestStateCodec<T> {
  const bytes = typeof options.key === 'string' ? new TextEncoder().encode(options.key).length : options.key.byteLength
  if (bytes < MIN_KEY_BYTES) throw new RangeError(`createRequestStateCodec: the key must be at least ${MIN_KEY_BYTES} bytes`)
  return {
    mint: async (payload) => JSON.stringify(payload),
    verify: async (state) => JSON.parse(state) as T,
  }
}
