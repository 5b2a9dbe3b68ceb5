/**
 * Transport guards that run before a body is read: Origin and Host allow-lists (streamable-http:
 * servers MUST validate `Origin`; DNS rebinding protection), the `Accept` rule and the content type.
 *
 * Origin: a request with an `Origin` header (every browser POST) passes only if the origin is a
 * loopback origin or listed in `allowedOrigins`; a page that rebinds its own name to 127.0.0.1
 * still sends its own origin and is refused. Requests without `Origin` (non-browser clients) pass.
 * Host: when `allowedHosts` is set, the `Host` name must be listed or be a loopback name.
 */
import { HEADER } from '../protocol/constants.ts'
import { McpError } from '../protocol/errors.ts'

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]', '::1'])

export interface GuardOptions {
  /** Origins (`scheme://host[:port]`) allowed besides loopback ones; `'*'` allows any. */
  allowedOrigins?: readonly string[]
  /** Host names allowed besides loopback ones; unset means any host. */
  allowedHosts?: readonly string[]
}

function hostName(host: string): string {
  const trimmed = host.trim().toLowerCase()
  if (trimmed.startsWith('[')) return trimmed.slice(0, trimmed.indexOf(']') + 1)
  return trimmed.replace(/:\d+$/, '')
}

const IPV4_LOOPBACK = /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/

/** The last host asked about and its answer: a server hears the same `host:port` request after request. */
let lastHost = ''
let lastLoopback = false

export function isLoopbackHost(host: string): boolean {
  if (host === lastHost) return lastLoopback
  const name = hostName(host)
  const loopback = LOOPBACK_HOSTS.has(name) || name.endsWith('.localhost')
  lastHost = host
  lastLoopback = loopback
  return loopback
}

/** A connecting address (`CF-Connecting-IP`) in 127.0.0.0/8 or `::1` (IPv4-mapped included). */
export function isLoopbackAddress(address: string): boolean {
  const ip = address.trim().toLowerCase()
  return ip === '::1' || IPV4_LOOPBACK.test(ip) || IPV4_LOOPBACK.test(ip.replace(/^::ffff:/, ''))
}

/**
 * Where the path of `request.url` starts. The runtime hands URLs over parsed and canonical, and a
 * canonical http(s) URL always has a path (at least `/`) right after its authority, so the first
 * `/` after `//` is it. Only for `request.url`; anything else goes through `new URL`.
 */
export function pathStart(url: string): number {
  const at = url.indexOf('/', url.indexOf('//') + 2)
  return at < 0 ? url.length : at
}

/**
 * The host of `request.url` (with its port), read without parsing it again.
 *
 * @example
 * urlHost('http://127.0.0.1:8787/mcp?x=1') // '127.0.0.1:8787'
 */
export function urlHost(url: string): string {
  const authority = url.slice(url.indexOf('//') + 2, pathStart(url))
  return authority.slice(authority.lastIndexOf('@') + 1)
}

/** An `Origin` whose host is loopback (`http://localhost:5173`); `null` and malformed ones are not. */
export function isLoopbackOrigin(origin: string): boolean {
  try {
    return isLoopbackHost(new URL(origin).host)
  } catch {
    return false
  }
}

export function checkOrigin(headers: Headers, options: GuardOptions): void {
  const origin = headers.get(HEADER.origin)
  if (origin !== null) {
    const allowed = options.allowedOrigins ?? []
    if (!isLoopbackOrigin(origin) && !allowed.includes('*') && !allowed.includes(origin)) {
      throw new McpError('forbidden', `Forbidden: origin ${origin} is not allowed`)
    }
  }
  if (options.allowedHosts !== undefined) {
    const host = headers.get(HEADER.host)
    const name = host === null ? '' : hostName(host)
    if (!isLoopbackHost(name) && !options.allowedHosts.some((allowed) => allowed.toLowerCase() === name)) {
      throw new McpError('forbidden', `Forbidden: host ${host ?? '(none)'} is not allowed`)
    }
  }
}

/** Whether an Accept header admits `type`; a range with `q=0` admits nothing. */
function covers(accept: string, type: string): boolean {
  const [major] = type.split('/')
  return accept.split(',').some((part) => {
    const [range = '', ...parameters] = part.split(';').map((piece) => piece.trim().toLowerCase())
    if (parameters.some((parameter) => /^q=0(\.0*)?$/.test(parameter))) return false
    return range === type || range === `${major}/*` || range === '*/*'
  })
}

/** streamable-http: the client MUST accept both `application/json` and `text/event-stream`. */
export function checkAccept(headers: Headers): void {
  const accept = headers.get(HEADER.accept)
  if (accept === null || accept === 'application/json, text/event-stream') return
  if (!covers(accept, 'application/json') || !covers(accept, 'text/event-stream')) {
    throw new McpError('notAcceptable')
  }
}

/** A GET for a stream: `Accept` must list `text/event-stream` (406 otherwise). */
export function checkStreamAccept(headers: Headers): void {
  const accept = headers.get(HEADER.accept)
  if (accept === null || !covers(accept, 'text/event-stream')) {
    throw new McpError('notAcceptable', 'Not Acceptable: a stream needs Accept: text/event-stream')
  }
}

export function checkContentType(headers: Headers): void {
  const type = headers.get(HEADER.contentType)
  // What clients send, checked as it is; anything else is parsed (parameters, case, spaces).
  if (type === 'application/json') return
  if (type === null || (type.split(';')[0] ?? '').trim().toLowerCase() !== 'application/json') {
    throw new McpError('unsupportedMediaType')
  }
}
