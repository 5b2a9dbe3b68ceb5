/**
 * The sign-in side of fixture (c), the OAuth provider's default handler: `/authorize` sends the
 * person to GitHub (state and PKCE S256), `/callback` exchanges GitHub's code, reads `/user`, and
 * completes the MCP client's authorization with the GitHub identity and token as the grant's props.
 * No consent page: the test's person has approved already. Plain fetch code, no SDK in it.
 */
import type { AuthRequest, OAuthHelpers } from '@cloudflare/workers-oauth-provider'

/** What the grant carries to the agent's tools (`this.props`). */
export type Props = { login: string; name: string; accessToken: string }

type HandlerEnv = Env & { OAUTH_PROVIDER: OAuthHelpers }

const PENDING_TTL_S = 600

function base64url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes))
    .replaceAll('+', '-')
    .replaceAll('/', '_')
    .replace(/=+$/, '')
}

async function authorize(request: Request, env: HandlerEnv): Promise<Response> {
  const oauthRequest = await env.OAUTH_PROVIDER.parseAuthRequest(request)
  const state = base64url(crypto.getRandomValues(new Uint8Array(24)))
  const verifier = base64url(crypto.getRandomValues(new Uint8Array(32)))
  const challenge = base64url(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))))
  await env.OAUTH_KV.put(`github-signin:${state}`, JSON.stringify({ oauthRequest, verifier }), { expirationTtl: PENDING_TTL_S })
  const github = new URL(`${env.GITHUB_WEB}/login/oauth/authorize`)
  github.search = new URLSearchParams({
    client_id: env.GITHUB_CLIENT_ID,
    redirect_uri: new URL('/callback', request.url).href,
    scope: 'read:user',
    state,
    code_challenge: challenge,
    code_challenge_method: 'S256',
  }).toString()
  return Response.redirect(github.href, 302)
}

async function callback(request: Request, env: HandlerEnv): Promise<Response> {
  const params = new URL(request.url).searchParams
  const key = `github-signin:${params.get('state') ?? ''}`
  const pending = await env.OAUTH_KV.get<{ oauthRequest: AuthRequest; verifier: string }>(key, 'json')
  if (!pending) return new Response('Unknown or expired sign-in', { status: 400 })
  await env.OAUTH_KV.delete(key)
  const exchanged = await fetch(`${env.GITHUB_WEB}/login/oauth/access_token`, {
    method: 'POST',
    headers: { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      client_id: env.GITHUB_CLIENT_ID,
      client_secret: env.GITHUB_CLIENT_SECRET,
      code: params.get('code') ?? '',
      redirect_uri: new URL('/callback', request.url).href,
      code_verifier: pending.verifier,
    }),
  })
  const token = (await exchanged.json()) as { access_token?: string }
  if (!token.access_token) return new Response('GitHub refused the code', { status: 400 })
  const user = await fetch(`${env.GITHUB_API}/user`, {
    headers: { authorization: `Bearer ${token.access_token}`, 'user-agent': 'sdk-github-fixture' },
  })
  const { login, name } = (await user.json()) as { login: string; name: string | null }
  const props: Props = { login, name: name ?? login, accessToken: token.access_token }
  const { redirectTo } = await env.OAUTH_PROVIDER.completeAuthorization({
    request: pending.oauthRequest,
    userId: login,
    metadata: { label: props.name },
    scope: pending.oauthRequest.scope,
    props,
  })
  return Response.redirect(redirectTo, 302)
}

export const GitHubHandler = {
  async fetch(request: Request, env: HandlerEnv): Promise<Response> {
    const { pathname } = new URL(request.url)
    if (pathname === '/authorize') return authorize(request, env)
    if (pathname === '/callback') return callback(request, env)
    return new Response('Not found', { status: 404 })
  },
}
