/**
 * The few parts of oidc-provider 9 (a test-only devDependency that ships no types) the test
 * support uses: construct a provider, serve it from a node:http server, listen to its events.
 */
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http'

  export default class Provider {
    constructor(issuer: string, configuration?: Record<string, unknown>)
    readonly issuer: string
    callback(): (request: IncomingMessage, response: ServerResponse) => void
    on(event: string, listener: (...args: unknown[]) => void): this
  }
}
