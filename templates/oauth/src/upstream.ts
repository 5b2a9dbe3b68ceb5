/**
 * Who signs people in: their identity provider, when OIDC_ISSUER, OIDC_CLIENT_ID and
 * OIDC_CLIENT_SECRET are set (any OpenID Connect issuer by its URL; `https://github.com` is the
 * GitHub preset, and OIDC_PRESET=github makes OIDC_ISSUER a GitHub Enterprise Server), else the
 * consent page's own passphrase sign-in, which is for local development.
 * Register `<MCP_PUBLIC_URL>/oauth/callback` as the redirect URI at the provider.
 */
import { upstreamFromConfig } from 'mcp-edge/oauth'
import type { UpstreamConfig, UpstreamProvider } from 'mcp-edge/oauth'

export interface UpstreamEnv {
  /** The provider's issuer URL: https, or http on 127.0.0.1 or localhost (local development). */
  OIDC_ISSUER?: string
  OIDC_CLIENT_ID?: string
  /** A secret: `npx wrangler secret put OIDC_CLIENT_SECRET`. */
  OIDC_CLIENT_SECRET?: string
  /** `github` for a GitHub Enterprise Server at OIDC_ISSUER (github.com is recognised by itself). */
  OIDC_PRESET?: string
}

/** Sign-in through a provider is half configured: the page says which setting is missing. */
export class SignInNotConfigured extends Error {}

const SETTINGS = ['OIDC_ISSUER', 'OIDC_CLIENT_ID', 'OIDC_CLIENT_SECRET'] as const
let cached: { key: string; provider: UpstreamProvider } | undefined

/**
 * The configured provider, or `undefined` when none of the three settings is set.
 *
 * @example
 * const upstream = upstreamFromEnv(env) // undefined: the passphrase page
 */
export function upstreamFromEnv(env: UpstreamEnv): UpstreamProvider | undefined {
  const missing = SETTINGS.filter((name) => !env[name])
  if (missing.length === SETTINGS.length) return undefined
  if (missing.length > 0) throw new SignInNotConfigured(`Sign-in with a provider also needs ${missing.join(' and ')}.`)
  const config: UpstreamConfig = {
    issuer: env.OIDC_ISSUER as string,
    clientId: env.OIDC_CLIENT_ID as string,
    clientSecret: env.OIDC_CLIENT_SECRET as string,
    preset: (env.OIDC_PRESET || undefined) as UpstreamConfig['preset'],
  }
  const key = JSON.stringify(config)
  if (cached?.key !== key) {
    try {
      cached = { key, provider: upstreamFromConfig(config) }
    } catch (error) {
      throw new SignInNotConfigured(error instanceof Error ? error.message : String(error))
    }
  }
  return cached.provider
}
