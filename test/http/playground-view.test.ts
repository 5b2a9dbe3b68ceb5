/**
 * The playground as an MCP Apps host (issue 25), in Chromium against the demo under `wrangler
 * dev`: write_story's view (the durable template's view/story.ts, built with ext-apps' `App`) is
 * read with resources/read and rendered by the sandbox page on the page's other loopback origin,
 * inside which it runs with an opaque origin; AppBridge sends it the call's input, each partial
 * result as `ui/notifications/tool-result-partial` while the call streams, then the result; the
 * view calls `add_note` through the page's client and the server stores the note; the view's size
 * changes resize its frame; a request its CSP does not allow is blocked; a view that navigates
 * away is stopped; a cancelled call and Close (answered) reach it. Screenshots:
 * screenshots/playground-view/, listed at the end.
 */
import type { Frame, Locator, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { launchBrowser } from '../support/browser.ts'
import type { Browser } from '../support/browser.ts'
import { callTool, openPlayground } from '../support/playground.ts'
import { rpc } from '../support/mcp.ts'

const origin = () => new URL(inject('templateUrl')).origin
let browser: Browser
let page: Page

beforeAll(async () => {
  browser = await launchBrowser('playground-view')
  page = await openPlayground(browser.context, origin())
})

afterAll(async () => {
  await browser?.close()
  if (browser?.shots.length) console.log(`Playground view screenshots:\n${browser.shots.map((path) => `  ${path}`).join('\n')}`)
})

/** The document an iframe shows once it is the view (`srcdoc`), polled for up to 20 s. */
async function srcdocOf(iframe: Locator): Promise<Frame> {
  for (const deadline = Date.now() + 20_000; Date.now() < deadline; ) {
    const frame = await (await iframe.elementHandle())?.contentFrame()
    if (frame?.url() === 'about:srcdoc') return frame
    await page.waitForTimeout(50)
  }
  throw new Error('the view never loaded in its sandbox')
}

/** The newest call's box on write_story's card, and the frames its view runs in. */
async function newestView(card: Locator): Promise<{ run: Locator; sandbox: Frame; view: Frame }> {
  const run = card.locator('.run').first()
  const frame = run.locator('iframe.view-frame')
  await frame.waitFor()
  const sandbox = (await (await frame.elementHandle())?.contentFrame()) as Frame
  await sandbox.waitForLoadState()
  const inner = sandbox.locator('iframe')
  await inner.waitFor({ state: 'attached' })
  const view = await srcdocOf(inner)
  await view.locator('#status').waitFor()
  return { run, sandbox, view }
}

/**
 * Scroll a call's view frame into view. Chromium defers rendering (animation frames) in an
 * off-screen cross-origin frame, and App measures its size on an animation frame.
 */
const inView = (run: Locator) => run.locator('iframe.view-frame').evaluate((frame) => frame.scrollIntoView({ block: 'start' }))

const sentences = (view: Frame) => view.locator('#story .sentence').allTextContents()

describe('the playground hosts MCP Apps views', () => {
  it('renders write_story’s view in a sandbox on another origin, with its input, live partial results in order, then the result', async () => {
    const card = await callTool(page, 'write_story', { topic: 'a lighthouse', sentences: '200' })
    const { run, sandbox, view } = await newestView(card)
    // Two origins and no third: the sandbox on the page's other loopback name, the view opaque.
    expect(new URL(page.url()).hostname).toBe('127.0.0.1')
    expect(await sandbox.evaluate(() => window.origin)).toBe(origin().replace('127.0.0.1', 'localhost'))
    expect(await view.evaluate(() => window.origin)).toBe('null')
    expect(await view.evaluate(() => document.querySelector('iframe'))).toBeNull()

    // The input arrives first; sentences appear while the call still runs (200 × 50 ms, room for a slow page).
    await inView(run)
    await view.locator('#title', { hasText: 'A story about a lighthouse' }).waitFor()
    await view.locator('#story .sentence').nth(2).waitFor()
    const midway = await sentences(view)
    expect(await run.getAttribute('data-state')).toBe('running')
    expect(midway.length).toBeGreaterThanOrEqual(3)
    expect(midway.length).toBeLessThan(200)
    await browser.shot(page, 'story-view-streaming', run.locator('.view'))

    await run.locator('[data-state=ready]').waitFor()
    await card.locator('.run[data-state=complete]').first().waitFor()
    await view.locator('#status', { hasText: 'Done: 200 sentences streamed.' }).waitFor()
    // Every partial result, in order, then the final result (the whole story, as the page shows it).
    const streamed = await sentences(view)
    expect(streamed).toEqual(Array.from({ length: 200 }, (_, i) => `Sentence ${i + 1} of a story about a lighthouse. `))
    expect(await view.locator('#story').textContent()).toBe(await run.locator('.result .text').textContent())
    expect(await view.locator('#save').isEnabled()).toBe(true)
    await browser.shot(page, 'story-view-complete', run.locator('.view'))
  })

  it('follows the view’s size: its frame grows to the height the view reports', async () => {
    const card = page.locator('#tool-write_story')
    const { run, view } = await newestView(card)
    const frame = run.locator('iframe.view-frame')
    await inView(run)
    const content = await view.evaluate(() => document.documentElement.getBoundingClientRect().height)
    const height = () => frame.evaluate((element: HTMLIFrameElement) => Number.parseFloat(element.style.height))
    // The frame follows what the view reports (its document's height, rounded up by App).
    await expect.poll(async () => Math.abs((await height()) - Math.min(content, 800)), { timeout: 10_000 }).toBeLessThanOrEqual(1)
    expect(await height()).toBeGreaterThan(160) // taller than the frame's first height, with 200 sentences
  })

  it('passes a tools/call from inside the view to the server and its answer back to the view, an error too', async () => {
    // The 200-sentence story is longer than a note may be: the server's tool error reaches the view.
    const long = await newestView(page.locator('#tool-write_story'))
    await long.view.locator('#save').click()
    await long.view.locator('#status', { hasText: 'Not saved: A note has at most 2000 characters' }).waitFor()
    expect(await long.view.locator('#save').isEnabled()).toBe(false)

    const card = await callTool(page, 'write_story', { topic: 'a harbour', sentences: '5' })
    const { run, view } = await newestView(card)
    await view.locator('#status', { hasText: /^Done/ }).waitFor()
    const story = (await view.locator('#story').textContent()) as string
    await view.locator('#save').click()
    await view.locator('#status', { hasText: /^Note \d+ added to notes:\/\/all\.$/ }).waitFor()
    const answer = (await view.locator('#status').textContent()) as string
    expect(await run.locator('.view .log li').allTextContents()).toEqual([`The view called add_note: ${answer}`])
    // The server stored it: the note, as the view sent it, is in notes://all.
    const read = await rpc(fetch, inject('templateUrl'), 'resources/read', { uri: 'notes://all' })
    const notes = JSON.parse((read.message.result as { contents: { text: string }[] }).contents[0]?.text ?? '[]')
    const id = Number(/^Note (\d+)/.exec(answer)?.[1])
    expect(notes).toContainEqual(expect.objectContaining({ id, text: story }))
    await inView(run)
    await browser.shot(page, 'story-view-saved', run)
  })

  it('blocks what the view’s CSP does not allow: it declared no connect domains, so fetch fails', async () => {
    const { view } = await newestView(page.locator('#tool-write_story'))
    const outcome = await view.evaluate(async (url) => {
      const violations: string[] = []
      document.addEventListener('securitypolicyviolation', (event) =>
        violations.push(`${event.effectiveDirective} ${event.blockedURI}`),
      )
      const fetched = await fetch(url).then(
        () => 'fetched',
        (error: Error) => error.name,
      )
      await new Promise((resolve) => setTimeout(resolve, 100))
      return { fetched, violations }
    }, `${origin()}/mcp`)
    expect(outcome).toEqual({ fetched: 'TypeError', violations: [`connect-src ${origin()}/mcp`] })
  })

  it('stops a view that navigates its frame away: what loads there gets nothing', async () => {
    const { sandbox, view } = await newestView(page.locator('#tool-write_story'))
    await view.evaluate(() => {
      setTimeout(() => location.assign('about:blank'), 0)
    })
    await sandbox.locator('body', { hasText: 'The view navigated away from its document, so it was stopped.' }).waitFor()
    expect(await sandbox.locator('iframe').count()).toBe(0)
  })

  it('tells the view when the call is cancelled', async () => {
    const card = await callTool(page, 'write_story', { topic: 'owls', sentences: '200' })
    const { run, view } = await newestView(card)
    await view.locator('#story .sentence').nth(1).waitFor()
    await run.getByRole('button', { name: 'Cancel' }).click()
    await view.locator('#status', { hasText: 'Cancelled: the user cancelled the call.' }).waitFor()
    expect(await run.getAttribute('data-state')).toBe('cancelled')
  })

  it('tears the view down on Close (ui/resource-teardown answered), then removes it', async () => {
    const card = page.locator('#tool-write_story')
    const run = card.locator('.run').first()
    await run.getByRole('button', { name: 'Close view' }).click()
    await run.locator('.view[data-state=closed]').waitFor()
    expect(await run.locator('iframe').count()).toBe(0)
    expect(await run.locator('.view .view-status').textContent()).toBe('The view ui://stories/story.html was closed.')
  })

  it('shows a view resource as a view, not as 600 KiB of text', async () => {
    const card = page.locator('#resource-story')
    await card.getByRole('button', { name: 'Read ui://stories/story.html' }).click()
    const text = await card.locator('.result').textContent()
    expect(text).toMatch(/^ui:\/\/stories\/story\.html \(text\/html;profile=mcp-app\)A view \(MCP Apps\): \d+ KiB of HTML/)
  })
})
