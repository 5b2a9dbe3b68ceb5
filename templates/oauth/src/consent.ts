/**
 * The OAuth template's `/authorize` page (src/provider.ts): a minimal sign-in and consent
 * form on top of `@cloudflare/workers-oauth-provider`'s helpers. GET validates the request and
 * shows who asks, where the tokens go and which scopes; POST approves (storing the signed-in
 * name as the grant's props, which become the MCP principal) or declines.
 *
 * Sign-in is deliberately small: a name, and the passphrase in the MCP_OAUTH_PASSPHRASE secret.
 * Without that secret only a local browser may approve (the same rule as the fail-closed
 * endpoint), so a deploy without it hands out no tokens. Replace it with your identity provider
 * (the library's docs/upstream-sign-in.md) for real users.
 */
import { AuthorizationError, CimdFetchError } from '@cloudflare/workers-oauth-provider'
import type { ConsentDescription, OAuthHelpers } from '@cloudflare/workers-oauth-provider'
import { Hono } from 'hono'
import { isLocalRequest } from 'mcp-edge'

export interface ConsentEnv {
  OAUTH_PROVIDER: OAuthHelpers
  MCP_OAUTH_PASSPHRASE?: string
}

const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`)
const NAME = /^[\p{L}\p{N} ._@-]{1,64}$/u
const encoder = new TextEncoder()

function page(details: ConsentDescription, handle: string, passphrase: boolean): string {
  const client = escapeHtml(details.clientName)
  const scopes = details.scope
    .map(
      (scope) => `<label><input type="checkbox" name="scope" value="${escapeHtml(scope)}" checked> ${escapeHtml(scope)}</label>`,
    )
    .join('<br>')
  return `<!doctype html>
<meta charset="utf-8">
<title>Authorize ${client}</title>
<h1>Allow ${client} to use this MCP server as you?</h1>
<p>${details.clientDomain ? `Published by <strong>${escapeHtml(details.clientDomain)}</strong>.` : 'This app registered itself; its name is not verified.'}
Access will be sent to <strong>${escapeHtml(details.redirectHost)}</strong>.</p>
${details.redirectIsLoopback ? '<p><strong>This sends access to an app on your computer.</strong> Continue only if you just started signing in from it.</p>' : ''}
<form method="post">
  <input type="hidden" name="handle" value="${escapeHtml(handle)}">
  <p><label>Your name <input name="user" required pattern="[^:]{1,64}"></label></p>
  ${passphrase ? '<p><label>Passphrase <input type="password" name="passphrase" required></label></p>' : ''}
  <p>${scopes}</p>
  <p><button name="decision" value="approve">Allow</button> <button name="decision" value="deny" formnovalidate>Deny</button></p>
</form>`
}

async function sameSecret(given: string, expected: string): Promise<boolean> {
  const [a, b] = await Promise.all([given, expected].map((text) => crypto.subtle.digest('SHA-256', encoder.encode(text))))
  return crypto.subtle.timingSafeEqual(a as ArrayBuffer, b as ArrayBuffer)
}

const plain = (message: string, status: number) =>
  new Response(message, { status, headers: { 'content-type': 'text/plain; charset=utf-8' } })

/** Sign-in is possible: a passphrase is configured, or the browser is on this machine. */
function canSignIn(request: Request, env: ConsentEnv): boolean {
  return Boolean(env.MCP_OAUTH_PASSPHRASE) || isLocalRequest(request)
}

export const consent = new Hono<{ Bindings: ConsentEnv }>()

consent.get('/authorize', async (c) => {
  if (!canSignIn(c.req.raw, c.env)) return plain('Sign-in is not configured: set the MCP_OAUTH_PASSPHRASE secret.', 403)
  const oauth = c.env.OAUTH_PROVIDER
  const request = await oauth.parseAuthRequest(c.req.raw)
  const details = await oauth.describeConsent(request) // first: a failed lookup leaves nothing stored
  const transaction = await oauth.beginConsent(request)
  transaction.headers.set('content-type', 'text/html; charset=utf-8')
  return new Response(page(details, transaction.handle, Boolean(c.env.MCP_OAUTH_PASSPHRASE)), { headers: transaction.headers })
})

consent.post('/authorize', async (c) => {
  if (!canSignIn(c.req.raw, c.env)) return plain('Sign-in is not configured: set the MCP_OAUTH_PASSPHRASE secret.', 403)
  const oauth = c.env.OAUTH_PROVIDER
  const form = await c.req.raw.formData()
  const handle = String(form.get('handle') ?? '')
  if (form.get('decision') !== 'approve') {
    const denied = await oauth.denyConsent(c.req.raw, handle)
    return new Response(null, { status: 302, headers: denied.headers })
  }
  const user = String(form.get('user') ?? '').trim()
  if (!NAME.test(user)) return plain('Enter a name of 1 to 64 letters, digits, spaces or . _ @ -', 400)
  const secret = c.env.MCP_OAUTH_PASSPHRASE
  if (secret && !(await sameSecret(String(form.get('passphrase') ?? ''), secret))) return plain('Wrong passphrase.', 403)
  const approved = await oauth.approveConsent(c.req.raw, handle, { scope: form.getAll('scope').map(String) })
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

consent.onError((error) => {
  // Redirect only to a client and redirect URI the library validated; render everything else here.
  if (error instanceof AuthorizationError && error.redirectTo) return Response.redirect(error.redirectTo, 302)
  if (error instanceof AuthorizationError) return plain(error.description, 400)
  if (error instanceof CimdFetchError) return plain('This app could not be verified.', 400)
  throw error
})
