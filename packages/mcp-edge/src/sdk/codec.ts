/**
 * SDK 2.x's `createRequestStateCodec`: a handler's own `requestState`, minted with `mint` and read
 * back through the server's `requestState.verify`: HMAC-SHA-256 over the payload, its expiry and
 * an optional binding tag, as the SDK's codec signs it (signed, not encrypted: the client can read
 * the payload). Inside `inputRequired` the state also travels in mcp-edge's own sealed
 * `requestState` (bound to the caller, method, target and arguments); the codec keeps its own
 * guarantees for code that hands its states out elsewhere.
 */
import { decodeBase64Url, encodeBase64Url } from '../protocol/base64.ts'
import type { RequestHandlerExtra } from './context.ts'

export interface RequestStateCodecOptions {
  /** The HMAC secret: at least 32 bytes (a string is UTF-8 encoded). */
  key: Uint8Array | string
  /** How long a minted state stays valid (default 600 s). */
  ttlSeconds?: number
  /** A binding checked at verify time against the one at mint time (the caller, the method…). */
  bind?: (ctx: RequestHandlerExtra) => string
}

export interface RequestStateCodec<T = unknown> {
  mint(payload: T, ctx?: RequestHandlerExtra): Promise<string>
  verify(state: string, ctx: RequestHandlerExtra): Promise<T>
}

const MIN_KEY_BYTES = 32
const DEFAULT_TTL_SECONDS = 600
const text = new TextEncoder()

/**
 * @example
 * const codec = createRequestStateCodec<{ step: number }>({ key: env.REQUEST_STATE_SECRET })
 * new McpServer(info, { requestState: { verify: codec.verify } })
 */
export function createRequestStateCodec<T = unknown>(options: RequestStateCodecOptions): RequestStateCodec<T> {
  const raw = typeof options.key === 'string' ? text.encode(options.key) : options.key
  if (raw.byteLength < MIN_KEY_BYTES)
    throw new RangeError(`createRequestStateCodec: the key must be at least ${MIN_KEY_BYTES} bytes`)
  const ttlSeconds = options.ttlSeconds ?? DEFAULT_TTL_SECONDS
  const key = crypto.subtle.importKey('raw', new Uint8Array(raw), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify'])
  const sign = async (data: string) => new Uint8Array(await crypto.subtle.sign('HMAC', await key, text.encode(data)))
  const bindTag = async (ctx: RequestHandlerExtra | undefined) => {
    if (!options.bind) return undefined
    if (!ctx) throw new TypeError('createRequestStateCodec: mint needs the handler context when the codec binds')
    return encodeBase64Url((await sign(`mcp.requestState.bind:${options.bind(ctx)}`)).slice(0, 16))
  }
  return {
    async mint(payload, ctx) {
      const body = encodeBase64Url(
        text.encode(JSON.stringify({ p: payload, exp: Math.floor(Date.now() / 1000) + ttlSeconds, b: await bindTag(ctx) })),
      )
      return `v1.${body}.${encodeBase64Url(await sign(body))}`
    },
    async verify(state, ctx) {
      const [version, body, mac] = state.split('.')
      const signature = mac === undefined ? undefined : decodeBase64Url(mac)
      if (version !== 'v1' || body === undefined || !signature) throw new Error('malformed')
      if (!(await crypto.subtle.verify('HMAC', await key, signature, text.encode(body)))) throw new Error('mac')
      const decoded = decodeBase64Url(body)
      const envelope = decoded && (JSON.parse(new TextDecoder().decode(decoded)) as { p: T; exp: number; b?: string })
      if (!envelope) throw new Error('malformed')
      if (envelope.exp < Date.now() / 1000) throw new Error('expired')
      if (envelope.b !== (await bindTag(ctx))) throw new Error('bind')
      return envelope.p
    },
  }
}
