/**
 * SDK 2.x's DNS-rebinding guards for a hand-written `fetch(request)` server: each answers the 403
 * `Response` that refuses a request whose `Host` (or `Origin`) names a hostname not allowed, or
 * undefined to let it through, as the SDK answers. mcp-edge's `createMcpHandler` checks origins
 * itself (its `allowedOrigins` option); these keep ported code as it was, and an Origin that
 * `originValidationResponse` admitted is not refused again by the handler the request goes on to
 * (`originAdmitted`): the SDK's own handler checks none, so the code's guard was its whole policy.
 */

/** The loopback hostnames (`localhost`, `127.0.0.1`, `[::1]`). */
export function localhostAllowedHostnames(): string[] {
  return ['localhost', '127.0.0.1', '[::1]']
}

/** The loopback origin hostnames, the same three. */
export function localhostAllowedOrigins(): string[] {
  return localhostAllowedHostnames()
}

const refuse = (message: string) => Response.json({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }, { status: 403 })

/** A URL's host name, or undefined when it has none or does not parse. */
export const hostnameOf = (url: string): string | undefined => {
  try {
    return new URL(url).hostname || undefined
  } catch {
    return undefined
  }
}

/**
 * @example
 * const rejected = hostHeaderValidationResponse(request, localhostAllowedHostnames())
 * if (rejected) return rejected
 */
export function hostHeaderValidationResponse(request: Request, allowedHostnames: string[]): Response | undefined {
  const host = request.headers.get('host')
  if (!host) return refuse('Missing Host header')
  const hostname = hostnameOf(`http://${host}`)
  if (hostname === undefined) return refuse(`Invalid Host header: ${host}`)
  return allowedHostnames.includes(hostname) ? undefined : refuse(`Invalid Host: ${hostname}`)
}

/** Requests whose Origin the code's own `originValidationResponse` admitted, with that Origin. */
const admitted = new WeakMap<Request, string>()

/** Whether `originValidationResponse` admitted this request with the Origin it carries now. */
export const originAdmitted = (request: Request, origin: string): boolean => admitted.get(request) === origin

/** A request without an `Origin` passes; one with an origin whose hostname is not allowed is refused. */
export function originValidationResponse(request: Request, allowedOriginHostnames: string[]): Response | undefined {
  const origin = request.headers.get('origin')
  if (!origin) return undefined
  const hostname = hostnameOf(origin)
  if (hostname === undefined) return refuse(`Invalid Origin header: ${origin}`)
  const scheme = new URL(origin).protocol
  const anyOfScheme = scheme !== 'http:' && scheme !== 'https:' && allowedOriginHostnames.includes(`${scheme}//*`)
  if (!anyOfScheme && !allowedOriginHostnames.includes(hostname)) return refuse(`Invalid Origin: ${hostname}`)
  admitted.set(request, origin)
  return undefined
}
