/**
 * The playground in the template's OAuth mode (oauth/wrangler.jsonc under `wrangler dev`), signing
 * in as a user does in a real browser (headless Chromium): the page's first request is refused
 * 401 with the resource metadata, the page offers to sign in, registers itself, sends the browser
 * to the consent page with PKCE, the user allows, and back on the playground the code becomes a
 * token that every call then carries. The scopes asked for decide what the user may call.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchBrowser } from '../support/browser.ts'
import type { Browser } from '../support/browser.ts'
import { callTool, field, openPlayground } from '../support/playground.ts'
import { startWrangler, type WranglerServer } from '../support/wrangler.ts'

let worker: WranglerServer
let browser: Browser
let origin: string

beforeAll(async () => {
  ;[worker, browser] = await Promise.all([
    startWrangler({ config: 'apps/demo/oauth/wrangler.jsonc', vars: (port) => ({ MCP_PUBLIC_URL: `http://127.0.0.1:${port}` }) }),
    launchBrowser('playground-oauth'),
  ])
  origin = `http://127.0.0.1:${worker.port}`
}, 120_000)

afterAll(async () => {
  await Promise.all([worker?.stop(), browser?.close()])
  if (browser?.shots.length)
    console.log(`Playground (OAuth) screenshots:\n${browser.shots.map((path) => `  ${path}`).join('\n')}`)
})

describe('the playground signs in with OAuth (authorization code, PKCE, consent)', () => {
  it('signs in through the consent page, then calls tools with the token', async () => {
    const page = await openPlayground(browser.context, origin, { ready: false })
    await page.locator('#sign-in:not([hidden])').waitFor()
    expect(await page.locator('#sign-in-text').textContent()).toBe('This server uses OAuth: sign in to get a token.')
    expect(await field(page, 'Scopes to ask for').inputValue()).toBe('mcp')
    await field(page, 'Scopes to ask for').fill('mcp records:write')
    await page.getByRole('button', { name: 'Sign in' }).click()
    // The template's consent page, reached with PKCE S256 and this resource.
    await page.waitForURL((url) => url.pathname === '/authorize')
    const asked = new URL(page.url())
    expect(asked.searchParams.get('code_challenge_method')).toBe('S256')
    expect(asked.searchParams.get('resource')).toBe(`${origin}/mcp`)
    expect(asked.searchParams.get('redirect_uri')).toBe(`${origin}/playground/`)
    expect(await page.locator('h1').textContent()).toBe('Allow mcp-edge playground to use this MCP server as you?')
    await field(page, 'Your name').fill('ada')
    await browser.shot(page, 'consent')
    await page.getByRole('button', { name: 'Allow' }).click()
    // Back on the playground: the code is exchanged, the address cleaned, the lists read with the token.
    await page.locator('body[data-ready=true]').waitFor()
    expect(new URL(page.url()).search).toBe('')
    expect(await field(page, 'Bearer token').inputValue()).not.toBe('')
    expect(await page.locator('#tools article h3').allTextContents()).toContain('delete_record') // records:write was granted
    const add = await callTool(page, 'add', { a: '2', b: '40' })
    await add.locator('.run[data-state=complete]').waitFor()
    expect(await add.locator('.result .text').textContent()).toBe('42')
    const del = await callTool(page, 'delete_record', { id: 'r-7' })
    await field(del.locator('form[data-ask=confirm]'), 'confirm').check()
    await del.locator('form[data-ask=confirm]').getByRole('button', { name: 'Submit' }).click()
    await del.locator('.run[data-state=complete]').waitFor()
    expect(await del.locator('.result .text').textContent()).toBe('Record r-7 deleted.')
    await browser.shot(page, 'signed-in')
    await page.close()
  })

  it('gets only what it asked for: a token for "mcp" alone does not list delete_record', async () => {
    const page = await openPlayground(browser.context, origin, { ready: false })
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.waitForURL((url) => url.pathname === '/authorize')
    await field(page, 'Your name').fill('bob')
    await page.getByRole('button', { name: 'Allow' }).click()
    await page.locator('body[data-ready=true]').waitFor()
    const names = await page.locator('#tools article h3').allTextContents()
    expect(names).toContain('add')
    expect(names).not.toContain('delete_record')
    await page.close()
  })

  it('says so when the user denies', async () => {
    const page = await openPlayground(browser.context, origin, { ready: false })
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.waitForURL((url) => url.pathname === '/authorize')
    await page.getByRole('button', { name: 'Deny' }).click()
    await page.locator('#auth-status', { hasText: 'Sign-in failed' }).waitFor()
    expect(await page.locator('#auth-status').textContent()).toContain('access_denied')
    expect(await field(page, 'Bearer token').inputValue()).toBe('')
    await page.close()
  })
})
