/**
 * The OAuth template's `/authorize` page (src/provider.ts), on top of
 * `@cloudflare/workers-oauth-provider`'s helpers. GET validates the request and shows which client
 * asks, where the code will go and which scopes (a request without `scope` gets the baseline);
 * the HTML, and the pages for refused requests, are src/consent-page.ts. POST, from this site
 * only, approves or declines.
 *
 * Who signs in (src/upstream.ts): with OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET, the
 * person's identity provider. Consent for this client comes first, then the provider, reached from
 * the approving POST by a redirect (the MCP authorization spec's confused-deputy rule); its answer
 * comes back to /oauth/callback (src/callback.ts). Without them, for development: the passphrase
 * in the MCP_OAUTH_PASSPHRASE secret (at least 32 characters; a wrong one declines that consent),
 * which signs in one principal, `passphrase` (whoever knows it is that one person: they do not
 * choose a subject); without that secret only a local browser may approve (the fail-closed
 * endpoint's rule: no proxy headers either), as any name it types, so such a deploy hands out no
 * tokens.
 */
import { AuthorizationError, authorizationErrorRedirect, CimdFetchError } from '@cloudflare/workers-oauth-provider'
import type { OAuthHelpers } from '@cloudflare/workers-oauth-provider'
import { Hono } from 'hono'
import { isLocalRequest } from 'mcp-edge'
import { randomToken, s256, UpstreamError } from 'mcp-edge/oauth'
import { finishSignIn } from './callback'
import type { SignInState } from './callback'
import { consentPage, contentSecurityPolicy, errorPage } from './consent-page'
import type { ServerBrand, SignInBy } from './consent-page'
import { SignInNotConfigured, upstreamFromEnv } from './upstream'
import type { UpstreamEnv } from './upstream'

export interface ConsentEnv extends UpstreamEnv {
  OAUTH_PROVIDER: OAuthHelpers
  /** Without a provider: what a person types to sign in (local development). */
  MCP_OAUTH_PASSPHRASE?: string
}

export interface SignInOptions {
  /** This Worker's public origin (MCP_PUBLIC_URL). */
  base: string
  /** The scope a request without `scope` is offered. */
  baseline: string
  /** The server's name and icon, at the top of every page. */
  brand: ServerBrand
  /** Each scope in words, as the consent page lists it (the baseline has a default). */
  scopeDescriptions?: Record<string, string>
}

const NAME = /^[\p{L}\p{N} ._@-]{1,64}$/u
const encoder = new TextEncoder()

/** The one principal the shared passphrase signs in: a shared secret is one identity, not a choice of many. */
export const PASSPHRASE_SUBJECT = 'passphrase'

/** A page of ours: HTML under the strict policy (src/consent-page.ts), never cached, never framed. */
async function htmlResponse(body: string, status: number, headers = new Headers()): Promise<Response> {
  headers.set('content-type', 'text/html; charset=utf-8')
  headers.set('content-security-policy', await contentSecurityPolicy())
  headers.set('x-frame-options', 'DENY')
  headers.set('cache-control', 'no-store')
  return new Response(body, { status, headers })
}

/** A scope in words: as the server describes it, or a default (the baseline's says what it gives). */
const describeScope = (scope: string, options: SignInOptions) =>
  options.scopeDescriptions?.[scope] ??
  (scope === options.baseline ? 'Use this server’s tools, prompts and resources as you' : `The “${scope}” permission`)

async function sameSecret(given: string, expected: string): Promise<boolean> {
  const [a, b] = await Promise.all([given, expected].map((text) => crypto.subtle.digest('SHA-256', encoder.encode(text))))
  return crypto.subtle.timingSafeEqual(a as ArrayBuffer, b as ArrayBuffer)
}

const NOT_CONFIGURED =
  'Sign-in is not configured: set OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET, or MCP_OAUTH_PASSPHRASE.'

/** The shortest passphrase accepted: `openssl rand -base64 32` gives 44 characters. */
export const MIN_PASSPHRASE_CHARS = 32

/**
 * MCP_OAUTH_PASSPHRASE, or `undefined` when it is unset (or empty). Anyone on the internet may
 * guess it, so a short one is a configuration error (SignInNotConfigured: src/provider.ts then
 * serves nothing and says why, and refuses to start with it), never a weak lock.
 *
 * @example
 * const secret = passphraseFrom(env) // undefined: only a local browser may consent
 */
export function passphraseFrom(env: Pick<ConsentEnv, 'MCP_OAUTH_PASSPHRASE'>): string | undefined {
  const secret = env.MCP_OAUTH_PASSPHRASE
  if (!secret) return undefined
  if (secret.length < MIN_PASSPHRASE_CHARS) {
    throw new SignInNotConfigured(
      `MCP_OAUTH_PASSPHRASE is shorter than ${MIN_PASSPHRASE_CHARS} characters. Generate one with: ` +
        'openssl rand -base64 32 | npx wrangler secret put MCP_OAUTH_PASSPHRASE ' +
        '(for local development put MCP_OAUTH_PASSPHRASE="..." in .dev.vars)',
    )
  }
  return secret
}

/** Without a provider, sign-in is possible with a passphrase configured, or from a browser on this machine. */
function canSignIn(request: Request, env: ConsentEnv): boolean {
  return passphraseFrom(env) !== undefined || isLocalRequest(request)
}

/**
 * A form posted from another page, even one on this host at another port (the same site, so its
 * cookies go along): refused. Browsers send Origin with every POST.
 */
function fromThisSite(request: Request): boolean {
  const origin = request.headers.get('origin')
  return origin === null || origin === new URL(request.url).origin
}

/**
 * The consent page and the provider's callback, mounted beside the authorization server.
 *
 * @example
 * site.route('/', signInRoutes({ base: 'https://mcp.example.com', baseline: 'mcp', brand: { name: 'My server' } }))
 */
export function signInRoutes(options: SignInOptions): Hono<{ Bindings: ConsentEnv }> {
  const routes = new Hono<{ Bindings: ConsentEnv }>()
  const redirectUri = `${options.base}/oauth/callback`
  const refuse = (message: string, status: number) => htmlResponse(errorPage(options.brand, message, status), status)

  routes.get('/authorize', async (c) => {
    const upstream = upstreamFromEnv(c.env)
    if (!upstream && !canSignIn(c.req.raw, c.env)) return refuse(NOT_CONFIGURED, 403)
    const oauth = c.env.OAUTH_PROVIDER
    const request = await oauth.parseAuthRequest(c.req.raw)
    const details = await oauth.describeConsent(request) // first: a failed lookup leaves nothing stored
    const transaction = await oauth.beginConsent(request)
    const scopes = (details.scope.length > 0 ? details.scope : [options.baseline]).map((scope) => ({
      scope,
      description: describeScope(scope, options),
    }))
    const by: SignInBy = upstream ? { provider: upstream.issuer } : { passphrase: passphraseFrom(c.env) !== undefined }
    const page = consentPage(options.brand, { details, handle: transaction.handle, scopes, by })
    return htmlResponse(page, 200, transaction.headers)
  })

  routes.post('/authorize', async (c) => {
    if (!fromThisSite(c.req.raw)) return refuse('This form can only be sent from this site.', 403)
    const upstream = upstreamFromEnv(c.env)
    if (!upstream && !canSignIn(c.req.raw, c.env)) return refuse(NOT_CONFIGURED, 403)
    const oauth = c.env.OAUTH_PROVIDER
    const form = await c.req.raw.formData()
    const handle = String(form.get('handle') ?? '')
    if (form.get('decision') !== 'approve') {
      const denied = await oauth.denyConsent(c.req.raw, handle)
      return new Response(null, { status: 302, headers: denied.headers })
    }
    const scope = form.getAll('scope').map(String)
    if (upstream) {
      // Approved: now, and only now, the provider. Its state, our PKCE verifier and nonce are kept
      // by the library, encrypted, bound to this browser, for ten minutes and one use.
      const approved = await oauth.approveConsent(c.req.raw, handle, { scope })
      const data: SignInState = { verifier: randomToken(), nonce: randomToken() }
      const { state, headers } = await oauth.beginUpstream(approved.request, { data, headers: approved.headers })
      try {
        const codeChallenge = await s256(data.verifier)
        headers.set('location', await upstream.authorizationUrl({ redirectUri, state, nonce: data.nonce, codeChallenge }))
      } catch (error) {
        if (!(error instanceof UpstreamError)) throw error
        console.warn(JSON.stringify({ msg: 'identity provider unreachable', reason: error.reason }))
        headers.set(
          'location',
          authorizationErrorRedirect(approved.request, 'temporarily_unavailable', 'The sign-in service is unavailable'),
        )
      }
      return new Response(null, { status: 302, headers })
    }
    const secret = passphraseFrom(c.env)
    if (secret && !(await sameSecret(String(form.get('passphrase') ?? ''), secret))) {
      // One guess per consent: a wrong one declines it (the handle is spent, the client is told
      // access_denied), so each guess costs a new authorization request, and each is logged.
      // What makes guessing hopeless is the passphrase's length (passphraseFrom).
      console.warn(JSON.stringify({ msg: 'wrong passphrase' }))
      const denied = await oauth.denyConsent(c.req.raw, handle, { description: 'Wrong passphrase' })
      return new Response(null, { status: 302, headers: denied.headers })
    }
    // With the passphrase the subject is derived, never typed: a `user` field is ignored.
    const user = secret ? PASSPHRASE_SUBJECT : String(form.get('user') ?? '').trim()
    if (!NAME.test(user)) return refuse('Enter a name of 1 to 64 letters, digits, spaces or . _ @ -', 400)
    const approved = await oauth.approveConsent(c.req.raw, handle, { scope })
    const { redirectTo } = await oauth.completeAuthorization({
      request: approved.request, // from storage, not from the form
      userId: encodeURIComponent(user),
      metadata: {},
      scope: approved.request.scope,
      props: { subject: user },
    })
    approved.headers.set('location', redirectTo)
    return new Response(null, { status: 302, headers: approved.headers })
  })

  routes.get('/oauth/callback', async (c) => {
    const upstream = upstreamFromEnv(c.env)
    if (!upstream) return refuse('Not found', 404)
    return finishSignIn(c.req.raw, c.env.OAUTH_PROVIDER, upstream, redirectUri)
  })

  routes.onError((error) => {
    // Redirect only to a client and redirect URI the library validated; render everything else here.
    if (error instanceof AuthorizationError && error.redirectTo) return Response.redirect(error.redirectTo, 302)
    if (error instanceof AuthorizationError) return refuse(error.description, 400)
    if (error instanceof CimdFetchError) return refuse('This app could not be verified.', 400)
    if (error instanceof SignInNotConfigured) return refuse(error.message, 500)
    throw error
  })
  return routes
}
