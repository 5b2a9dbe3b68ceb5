/**
 * `upstreamFromConfig`: the provider a deployment's three settings (`OIDC_ISSUER`,
 * `OIDC_CLIENT_ID`, `OIDC_CLIENT_SECRET`) describe. GitHub is not an OpenID Connect provider, so
 * its issuer selects the GitHub preset (and `preset: 'github'` selects it for a GitHub Enterprise
 * Server, whose API is at `<issuer>/api/v3`); any other issuer is discovered. Bad settings fail
 * here, at start-up, with the setting's name.
 */
import { githubProvider } from './github.ts'
import { oidcProvider } from './oidc.ts'
import { secureUrl } from './secure-url.ts'
import type { UpstreamProvider } from './upstream.ts'

export interface UpstreamConfig {
  issuer: string
  clientId: string
  clientSecret: string
  /** `'github'`: the issuer is a GitHub Enterprise Server (OIDC_PRESET); default: by the issuer. */
  preset?: 'github' | 'oidc' | undefined
}

const GITHUB_ISSUERS = new Set(['https://github.com', 'https://github.com/'])

/**
 * From the three settings: issuer `https://github.com` selects the GitHub preset, anything else
 * OIDC discovery. Throws a TypeError naming OIDC_ISSUER when it is neither https nor http on
 * 127.0.0.1/localhost/[::1], and one naming OIDC_CLIENT_ID or OIDC_CLIENT_SECRET when it is empty.
 *
 * @example
 * const upstream = upstreamFromConfig({ issuer: env.OIDC_ISSUER, clientId: env.OIDC_CLIENT_ID, clientSecret: env.OIDC_CLIENT_SECRET })
 * upstream.issuer // 'https://accounts.example.com'
 */
export function upstreamFromConfig(config: UpstreamConfig): UpstreamProvider {
  const issuer = secureUrl(config.issuer, 'OIDC_ISSUER')
  if (issuer.search !== '' || issuer.hash !== '') throw new TypeError('OIDC_ISSUER must have no query and no fragment')
  if (!config.clientId) throw new TypeError('OIDC_CLIENT_ID is empty: set the client id the provider gave this server')
  if (!config.clientSecret) {
    throw new TypeError(
      'OIDC_CLIENT_SECRET is empty: set it with `wrangler secret put OIDC_CLIENT_SECRET` (locally in .dev.vars)',
    )
  }
  const { clientId, clientSecret } = config
  if (GITHUB_ISSUERS.has(config.issuer)) return githubProvider({ clientId, clientSecret })
  if (config.preset === 'github') {
    const webOrigin = issuer.origin
    if (issuer.pathname !== '/') throw new TypeError('OIDC_ISSUER of a GitHub Enterprise Server is its origin, with no path')
    return githubProvider({ clientId, clientSecret, webOrigin, apiOrigin: `${webOrigin}/api/v3` })
  }
  if (config.preset !== undefined && config.preset !== 'oidc') throw new TypeError('OIDC_PRESET is "github", "oidc" or unset')
  return oidcProvider({ issuer: config.issuer, clientId, clientSecret })
}
