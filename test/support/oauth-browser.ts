/**
 * The pieces the end-to-end sign-in tests share (test/http/oauth-*.test.ts): the official MCP
 * client's first, refused connect and the authorization URL it wants opened; what a Chromium page
 * requested (the provider's authorization requests, the redirects back to the MCP client); a
 * person at oidc-provider's own login and consent pages; a bounded wait.
 */
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client'
import type { Page } from 'playwright-core'
import { expect } from 'vitest'
import type { Browser } from './browser.ts'
import { REDIRECT_URI } from './oauth-client.ts'
import type { ScriptedOAuthProvider } from './oauth-client.ts'

/** The official MCP client (2.x) at its defaults, pinned to 2026-07-28. */
export function newOAuthClient(name: string): Client {
  return new Client({ name, version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } })
}

/** The MCP client's first connect to `url`: refused, and the authorization URL it wants a browser to open. */
export async function authorizationRequest(url: string, provider: ScriptedOAuthProvider): Promise<StreamableHTTPClientTransport> {
  const transport = new StreamableHTTPClientTransport(new URL(url), { authProvider: provider })
  await expect(newOAuthClient('sign-in test').connect(transport)).rejects.toBeInstanceOf(UnauthorizedError)
  expect(provider.authorizationUrl).toBeDefined()
  return transport
}

/** Every request of `page` whose URL `matches`, as it is made (redirects included). */
export function requestsOf(page: Page, matches: (url: URL, method: string) => boolean): URL[] {
  const seen: URL[] = []
  page.on('request', (request) => {
    const url = new URL(request.url())
    if (matches(url, request.method())) seen.push(url)
  })
  return seen
}

/** Where the browser was sent back to the MCP client (REDIRECT_URI, where nothing listens). */
export function clientRedirects(page: Page): URL[] {
  return requestsOf(page, (url) => url.href.startsWith(REDIRECT_URI))
}

/** Log in at oidc-provider's own pages (its development interactions) as `login`, and consent. */
export async function signInAtProvider(browser: Browser, page: Page, login: string): Promise<void> {
  await page.locator('input[name=login]').fill(login)
  await page.locator('input[name=password]').fill('any')
  await browser.shot(page, `provider-login-${login}`)
  await page.locator('button[type=submit]').click()
  await page.getByRole('button', { name: 'Continue' }).click()
}

/** `promise`, or an error naming what did not happen within `ms`. */
export function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms)
  })
  return Promise.race([promise, late]).finally(() => clearTimeout(timer))
}
