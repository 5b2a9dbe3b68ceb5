/**
 * The few parts of oidc-provider 9 (a test-only devDependency that ships no types) the test
 * support uses: construct a provider, serve it from a node:http server, listen to its events,
 * register a grant type and, inside its handler, find and issue access tokens.
 */
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http'

  /** An access token as the provider stores it (opaque: `save()` gives its value). */
  export interface AccessToken {
    readonly accountId: string
    readonly clientId: string
    readonly aud?: string
    readonly scope?: string
    readonly isValid: boolean
    save(): Promise<string>
  }

  /** What `new provider.AccessToken(…)` takes; a `resourceServer` binds the token to its audience. */
  export interface AccessTokenInit {
    accountId: string
    client: { clientId: string }
    scope?: string
    gty?: string
    expiresIn?: number
    resourceServer?: { audience: string; accessTokenFormat: 'opaque'; identifier(): string; scope?: string }
  }

  /** The Koa context a grant handler gets: the token request's parameters and client, and the answer to set. */
  export interface GrantContext {
    oidc: {
      params: Record<string, string | undefined>
      client: { clientId: string }
      provider: Provider
    }
    status: number
    body: unknown
  }

  export type GrantHandler = (ctx: GrantContext) => Promise<void>

  export default class Provider {
    constructor(issuer: string, configuration?: Record<string, unknown>)
    readonly issuer: string
    readonly AccessToken: {
      new (init: AccessTokenInit): AccessToken
      find(value: string): Promise<AccessToken | undefined>
    }
    callback(): (request: IncomingMessage, response: ServerResponse) => void
    on(event: string, listener: (...args: unknown[]) => void): this
    registerGrantType(name: string, handler: GrantHandler, params?: readonly string[]): void
  }
}
