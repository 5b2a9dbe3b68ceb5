/**
 * The OAuth template's consent page (templates/oauth/src/consent-page.ts) in a real browser:
 * the demo in OAuth mode under `wrangler dev`, headless Chromium (test/support/browser.ts) and
 * axe-core run in the page. Light and dark, the page and a refusal: what a person sees (the
 * server, the client marked unverified, each scope in words, where access goes), no serious or
 * critical accessibility violation, no Content-Security-Policy violation, a keyboard path through
 * the form, and Allow and Deny working with no script on the page. Screenshots go to
 * screenshots/consent-page/.
 */
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchBrowser } from '../support/browser.ts'
import type { Browser } from '../support/browser.ts'
import { requestsOf } from '../support/oauth-browser.ts'
import { REDIRECT_URI } from '../support/oauth-client.ts'
import { startWrangler, type WranglerServer } from '../support/wrangler.ts'

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')
/** A client name an attacker chose: markup and quotes, shown as text. */
const CLIENT_NAME = '<b>Notes</b> "helper"'

let worker: WranglerServer
let browser: Browser
let origin: string

beforeAll(async () => {
  ;[worker, browser] = await Promise.all([
    startWrangler({ config: 'apps/demo/oauth/wrangler.jsonc', vars: (port) => ({ MCP_PUBLIC_URL: `http://127.0.0.1:${port}` }) }),
    launchBrowser('consent-page'),
  ])
  origin = `http://127.0.0.1:${worker.port}`
}, 120_000)

afterAll(async () => {
  await Promise.all([worker?.stop(), browser?.close()])
  if (browser?.shots.length) console.log(`Consent page screenshots:\n${browser.shots.map((path) => `  ${path}`).join('\n')}`)
})

/** A registered client's authorization URL, asking for both of the demo's scopes. */
async function authorizationUrl(): Promise<string> {
  const registered = await fetch(`${origin}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: CLIENT_NAME, redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'none' }),
  })
  const { client_id } = (await registered.json()) as { client_id: string }
  const query = new URLSearchParams({
    response_type: 'code',
    client_id,
    redirect_uri: REDIRECT_URI,
    scope: 'mcp records:write',
    resource: `${origin}/mcp`,
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    code_challenge_method: 'S256',
    state: 'st',
  })
  return `${origin}/authorize?${query}`
}

/** axe-core's serious and critical violations on the page, as `rule: selector` lines. */
async function seriousViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE) // through the DevTools protocol: the page's CSP allows no script, rightly
  const violations = (await page.evaluate(
    'axe.run(document).then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, targets: v.nodes.map((n) => String(n.target)) })))',
  )) as { id: string; impact: string; targets: string[] }[]
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.targets.join(', ')}`)
}

/** Open `url` in a page that records every CSP violation the browser reports. */
async function open(url: string, scheme: 'light' | 'dark'): Promise<{ page: Page; blocked: string[]; status: number }> {
  const page = await browser.context.newPage()
  await page.emulateMedia({ colorScheme: scheme })
  const blocked: string[] = []
  page.on('console', (message) => {
    if (message.text().includes('Content Security Policy')) blocked.push(message.text())
  })
  const response = await page.goto(url)
  return { page, blocked, status: response?.status() ?? 0 }
}

describe('the consent page in Chromium', () => {
  for (const scheme of ['light', 'dark'] as const) {
    it(`shows who asks, what for and where access goes, accessibly, in ${scheme} mode`, async () => {
      const { page, blocked, status } = await open(await authorizationUrl(), scheme)
      try {
        expect(status).toBe(200)
        expect(await page.locator('h1').textContent()).toBe(`Allow ${CLIENT_NAME} to use this MCP server as you?`)
        expect(await page.locator('header').textContent()).toBe('mcp-edge demo')
        expect(await page.locator('header img').evaluate((img: HTMLImageElement) => img.naturalWidth > 0)).toBe(true)
        expect(await page.locator('.tag').textContent()).toBe('Unverified')
        const body = (await page.locator('body').textContent()) ?? ''
        expect(body).toContain('Access will be sent to 127.0.0.1.')
        expect(body).toContain('Address: http://127.0.0.1:9')
        expect(body).toContain('This sends access to an app on your computer.')
        expect(await page.getByRole('checkbox', { name: /Use this server’s tools/ }).isChecked()).toBe(true)
        expect(await page.getByRole('checkbox', { name: /Change and delete your records/ }).isChecked()).toBe(true)
        expect(await page.getByRole('textbox', { name: 'Your name' }).count()).toBe(1)
        expect(await page.locator('script').count()).toBe(0)
        expect(await page.evaluate(() => getComputedStyle(document.body).fontFamily)).toContain('system-ui')
        const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor)
        expect(background).toBe(scheme === 'dark' ? 'rgb(9, 9, 11)' : 'rgb(244, 244, 245)')
        await browser.shot(page, `consent-${scheme}`)
        expect(await seriousViolations(page)).toEqual([])
        expect(blocked).toEqual([])
      } finally {
        await page.close()
      }
    })

    it(`shows a refused request as a page of its own, accessibly, in ${scheme} mode`, async () => {
      const { page, blocked, status } = await open(`${origin}/authorize?response_type=code&client_id=nobody`, scheme)
      try {
        expect(status).toBe(400)
        expect(await page.locator('h1').textContent()).toBe('This sign-in cannot continue')
        expect(await page.getByRole('alert').textContent()).toBe('Invalid client_id')
        expect(await page.locator('main').textContent()).toContain('Nothing was shared with the app.')
        await browser.shot(page, `refused-${scheme}`)
        expect(await seriousViolations(page)).toEqual([])
        expect(blocked).toEqual([])
      } finally {
        await page.close()
      }
    })
  }

  it('is sent under a strict policy: no script, no framing, the stylesheet by its hash', async () => {
    const response = await fetch(await authorizationUrl())
    const policy = response.headers.get('content-security-policy') ?? ''
    expect(policy).toMatch(
      /^default-src 'none'; style-src 'sha256-[\w+/]{43}='; img-src https: data:; base-uri 'none'; frame-ancestors 'none'$/,
    )
    expect(response.headers.get('x-frame-options')).toBe('DENY')
    expect(response.headers.get('cache-control')).toBe('no-store')
  })

  it('takes the keyboard in reading order with a visible focus, and Enter in the name field means Allow', async () => {
    const { page } = await open(await authorizationUrl(), 'light')
    const back = requestsOf(page, (url) => url.href.startsWith(REDIRECT_URI))
    try {
      const order: string[] = []
      for (let step = 0; step < 5; step++) {
        await page.keyboard.press('Tab')
        order.push(
          await page.evaluate(() => {
            const element = document.activeElement as HTMLInputElement
            return `${element.tagName.toLowerCase()}:${element.name}:${element.value}`
          }),
        )
      }
      expect(order).toEqual([
        'input:user:',
        'input:scope:mcp',
        'input:scope:records:write',
        'button:decision:approve',
        'button:decision:deny',
      ])
      const outline = await page.evaluate(() => getComputedStyle(document.activeElement as Element).outlineStyle)
      expect(outline).toBe('solid')
      await browser.shot(page, 'consent-focus-deny')
      await page.getByRole('textbox', { name: 'Your name' }).fill('ada')
      await page.getByRole('textbox', { name: 'Your name' }).press('Enter')
      await expect.poll(() => back.length).toBe(1)
      expect([back[0]?.searchParams.get('state'), back[0]?.searchParams.has('code')]).toEqual(['st', true])
    } finally {
      await page.close()
    }
  })

  it('Deny sends the person back to the client with access_denied, no name needed', async () => {
    const { page } = await open(await authorizationUrl(), 'light')
    const back = requestsOf(page, (url) => url.href.startsWith(REDIRECT_URI))
    try {
      await page.getByRole('button', { name: 'Deny' }).click()
      await expect.poll(() => back.length).toBe(1)
      expect([back[0]?.searchParams.get('error'), back[0]?.searchParams.get('state')]).toEqual(['access_denied', 'st'])
    } finally {
      await page.close()
    }
  })
})
