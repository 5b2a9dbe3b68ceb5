/**
 * mcp-remote's own OAuth sign-in, end to end, as Claude Desktop connects (`npx mcp-remote <url>`
 * as a stdio server): the demo in OAuth mode (apps/demo/oauth under `wrangler dev`) signing people
 * in through oidc-provider on loopback (test/support/oidc-provider.ts), mcp-remote 0.15.1
 * (node_modules/mcp-remote/dist/proxy.js) spawned with a callback port, a person in headless
 * Chromium, and this test as the host over stdio.
 *
 * What stands in for what: only the browser launcher. mcp-remote opens the authorization URL with
 * its bundled `open` 10.2.0, which on Linux runs its bundled `xdg-open`; with no DISPLAY and
 * XDG_CURRENT_DESKTOP=X-Generic that is the generic mode, which runs `$BROWSER <url>`
 * (node_modules/mcp-remote/node_modules/open/xdg-open, open_generic and open_envvar). BROWSER is
 * test/support/browser-stand-in.ts, which hands the URL to this test; the test opens it in
 * Chromium. Everything else is real: mcp-remote registers itself by Dynamic Client Registration
 * (it uses a Client ID Metadata Document only with --client-metadata-url), sends the browser to
 * our consent page, the person allows, signs in at the provider, and the browser follows the
 * redirects to mcp-remote's own callback server (http://localhost:<port>/oauth/callback, listening
 * on 127.0.0.1), which exchanges the code. Then initialize, notifications/initialized and
 * `tools/call whoami` over stdio answer with the provider's subject.
 *
 * mcp-remote keeps its client registration and tokens in MCP_REMOTE_CONFIG_DIR (a temporary
 * directory here, ~/.mcp-auth by default); HOME is a temporary directory too.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { createInterface } from 'node:readline'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchBrowser } from '../support/browser.ts'
import type { Browser } from '../support/browser.ts'
import { listenForBrowserLaunches } from '../support/browser-stand-in.ts'
import { clientHome, removeHomeOnClose } from '../support/client-processes.ts'
import type { BrowserLaunches } from '../support/browser-stand-in.ts'
import { signInAtProvider as signInWithPage, within } from '../support/oauth-browser.ts'
import { startOidcProvider } from '../support/oidc-provider.ts'
import type { TestOidcProvider } from '../support/oidc-provider.ts'
import { groupSignaller } from '../support/process-group.ts'
import { freePort, startWrangler, type WranglerServer } from '../support/wrangler.ts'

const ROOT = resolve(import.meta.dirname, '../..')
const PROXY = join(ROOT, 'node_modules/mcp-remote/dist/proxy.js')
/** mcp-remote's discovery, registration and authorization request: well under a second here. */
const LAUNCH_MS = 30_000
/** An answer over stdio (the first waits for the code exchange and the connection). */
const ANSWER_MS = 20_000

let worker: WranglerServer
let idp: TestOidcProvider
let browser: Browser
let launches: BrowserLaunches
let origin: string

beforeAll(async () => {
  const port = await freePort()
  origin = `http://127.0.0.1:${port}`
  idp = await startOidcProvider({ redirectUris: [`${origin}/oauth/callback`] })
  ;[worker, browser, launches] = await Promise.all([
    startWrangler({
      config: 'apps/demo/oauth/wrangler.jsonc',
      port,
      vars: {
        MCP_PUBLIC_URL: origin,
        OIDC_ISSUER: idp.issuer,
        OIDC_CLIENT_ID: idp.clientId,
        OIDC_CLIENT_SECRET: idp.clientSecret,
      },
    }),
    launchBrowser('oauth-mcp-remote'),
    listenForBrowserLaunches(),
  ])
}, 120_000)

afterAll(async () => {
  await Promise.all([worker?.stop(), browser?.close(), idp?.close(), launches?.close()])
  if (browser?.shots.length)
    console.log(`mcp-remote sign-in screenshots:\n${browser.shots.map((path) => `  ${path}`).join('\n')}`)
})

const signInAtProvider = (page: Page, login: string) => signInWithPage(browser, page, login)

/**
 * mcp-remote as a stdio server, the way a desktop host starts it: its environment has no display,
 * a generic desktop (so xdg-open uses $BROWSER), the browser stand-in, and its own config dir.
 */
function startMcpRemote(serverUrl: string, callbackPort: number, configDir: string) {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...launches.env,
    HOME: clientHome(),
    MCP_REMOTE_CONFIG_DIR: configDir,
    XDG_CURRENT_DESKTOP: 'X-Generic',
  }
  for (const name of ['DISPLAY', 'WAYLAND_DISPLAY', 'HTTP_PROXY', 'HTTPS_PROXY', 'http_proxy', 'https_proxy']) delete env[name]
  const child = removeHomeOnClose(spawn(process.execPath, [PROXY, serverUrl, String(callbackPort)], { env, detached: true }), env)
  const stop = groupSignaller(child)
  let stderr = ''
  child.stderr.on('data', (chunk) => {
    stderr += chunk
  })
  const waiting = new Map<string, (message: any) => void>()
  createInterface({ input: child.stdout }).on('line', (line) => {
    const message = JSON.parse(line)
    if (message.id !== undefined && message.method === undefined) waiting.get(String(message.id))?.(message)
  })
  let nextId = 1
  const send = (message: object) => child.stdin.write(`${JSON.stringify(message)}\n`)
  return {
    send,
    request(method: string, params: object): Promise<any> {
      const id = nextId++
      const answered = new Promise((wake) => waiting.set(String(id), wake))
      send({ jsonrpc: '2.0', id, method, params })
      return within(answered, ANSWER_MS, `mcp-remote's answer to ${method}`).catch((error: Error) => {
        throw new Error(`${error.message}; its stderr:\n${stderr}`)
      })
    },
    stderr: () => stderr,
    async stop() {
      child.stdin.end()
      await stop('SIGTERM')
      rmSync(env.HOME as string, { recursive: true, force: true })
    },
  }
}

describe('mcp-remote’s own OAuth sign-in (as Claude Desktop connects), through an OpenID provider, in Chromium', () => {
  it('registers, sends the browser through our consent and the provider to its callback, then calls whoami over stdio', async () => {
    const callbackPort = await freePort()
    const configDir = mkdtempSync(join(tmpdir(), 'mcp-edge-mcp-auth-'))
    const remote = startMcpRemote(worker.url, callbackPort, configDir)
    const page = await browser.context.newPage()
    try {
      const launched = await launches.next(LAUNCH_MS).catch((error: Error) => {
        throw new Error(`${error.message}; mcp-remote's stderr:\n${remote.stderr()}`)
      })
      // Its authorization request, to our server: PKCE S256, the resource, its own callback.
      // Opened the way the header says: the bundled open's own xdg-open ran $BROWSER.
      expect(launched.by.join(' ')).toContain(join(ROOT, 'node_modules/mcp-remote/node_modules/open/xdg-open'))
      const request = new URL(launched.url)
      expect(request.origin + request.pathname).toBe(`${origin}/authorize`)
      expect(request.searchParams.get('redirect_uri')).toBe(`http://localhost:${callbackPort}/oauth/callback`)
      expect(request.searchParams.get('code_challenge_method')).toBe('S256')
      expect(request.searchParams.get('resource')).toBe(worker.url)

      await page.goto(launched.url)
      expect(await page.locator('h1').textContent()).toBe('Allow MCP CLI Proxy to use this MCP server as you?')
      expect(await page.locator('body').textContent()).toContain(`Next you sign in at ${new URL(idp.issuer).host}.`)
      expect(await page.locator('body').textContent()).toContain('Access will be sent to localhost.')
      await browser.shot(page, 'consent')
      await page.getByRole('button', { name: 'Allow' }).click()
      await signInAtProvider(page, 'ada')
      // The browser lands on mcp-remote's own callback server, which takes the code.
      await page.waitForURL(`http://localhost:${callbackPort}/oauth/callback?**`, { timeout: 10_000 })
      expect(new URL(page.url()).searchParams.get('error')).toBeNull()
      expect(await page.locator('body').textContent()).toContain('Authorization successful!')
      await browser.shot(page, 'mcp-remote-callback')

      // Now the host: mcp-remote answers on stdio once it has its tokens and its connection.
      const initialized = await remote.request('initialize', {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'desktop-host', version: '1.0.0' },
      })
      // The demo has an event hub, so it offers tools/list_changed.
      expect(initialized.result.capabilities.tools).toEqual({ listChanged: true })
      remote.send({ jsonrpc: '2.0', method: 'notifications/initialized' })
      const me = await remote.request('tools/call', { name: 'whoami', arguments: {} })
      expect(me.result.structuredContent).toEqual({
        subject: 'ada',
        name: 'User ada',
        email: 'ada@example.test',
        scopes: ['mcp'],
      })

      // It registered dynamically, for its own callback (and kept what it got in its config dir).
      const files = readdirSync(join(configDir, 'mcp-remote-v1'))
      const clientInfo = files.find((file) => file.endsWith('_client_info.json')) as string
      expect(files.some((file) => file.endsWith('_tokens.json'))).toBe(true)
      const registered = JSON.parse(readFileSync(join(configDir, 'mcp-remote-v1', clientInfo), 'utf8'))
      expect(registered).toMatchObject({
        client_name: 'MCP CLI Proxy',
        redirect_uris: [`http://localhost:${callbackPort}/oauth/callback`],
      })
      expect(registered.client_id).toBe(request.searchParams.get('client_id'))
    } finally {
      await page.close()
      await remote.stop()
      rmSync(configDir, { recursive: true, force: true })
    }
  })
})
