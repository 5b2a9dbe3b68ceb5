/**
 * The playground page (playground/, issue 14) in a real browser: headless Chromium driven by
 * playwright-core against the template under `wrangler dev` (PLAYGROUND=on from .dev.vars). What
 * a user does: call add; watch write_story stream (three chunks on the page before its result),
 * with progress; cancel a stream; confirm delete_record through its form; follow generate_report
 * and draft_article as tasks (answering the question draft_article asks mid-task); run a tool
 * with the keyboard alone; every input has a label in the accessibility tree. Then the gate (a
 * server without PLAYGROUND serves no page) and the bearer token field against it; following a
 * task by id (its log replayed); and against the conformance fixture, richer schemas (an enum, a
 * $ref edited as JSON), an x-mcp-header argument sent as a header, resource templates, prompt
 * arguments, images, two MRTR rounds, a URL elicitation, and a cancel whose abort the tool sees.
 * The OAuth mode's browser flow is in playground-oauth.test.ts. Screenshots:
 * screenshots/playground/, listed at the end.
 */
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { McpClient } from 'mcp-edge/client'
import { TASKS_EXTENSION } from '../../packages/mcp-edge/src/protocol/constants.ts'
import { launchBrowser } from '../support/browser.ts'
import type { Browser } from '../support/browser.ts'
import { callTool, everyControlLabelled, field, openPlayground, seqsIn, toolCard } from '../support/playground.ts'
import { DEMO_TOOLS, rpc } from '../support/mcp.ts'
import { startWrangler, type WranglerServer } from '../support/wrangler.ts'

const origin = () => new URL(inject('templateUrl')).origin
let browser: Browser
let page: Page

beforeAll(async () => {
  browser = await launchBrowser()
  page = await openPlayground(browser.context, origin())
})

afterAll(async () => {
  await browser?.close()
  if (browser?.shots.length) console.log(`Playground screenshots:\n${browser.shots.map((path) => `  ${path}`).join('\n')}`)
})

describe('the playground page in local dev', () => {
  it('lists tools, resources and prompts with their descriptions and annotations', async () => {
    const names = await page.locator('#tools article h3').allTextContents()
    expect(names).toEqual(DEMO_TOOLS)
    expect(await toolCard(page, 'add').locator('.description').textContent()).toBe('Add two numbers')
    expect(await toolCard(page, 'add').locator('.badges li').allTextContents()).toEqual(['readOnlyHint'])
    expect(await toolCard(page, 'delete_record').locator('.badges li').allTextContents()).toEqual(['destructiveHint'])
    expect(await toolCard(page, 'write_story').locator('.badges li').allTextContents()).toEqual(['streamingHint'])
    // An integer with bounds and a default: a number input with step 1, min, max and the default filled in.
    const sentences = field(toolCard(page, 'write_story'), 'sentences')
    expect(
      await sentences.evaluate((input: HTMLInputElement) => [input.type, input.step, input.min, input.max, input.value]),
    ).toEqual(['number', '1', '1', '200', '8'])
    expect(await page.locator('#resources article .uri').allTextContents()).toEqual([
      'ui://stories/story.html',
      'notes://all',
      'info://server',
    ])
    expect(await page.locator('#prompts article h3').allTextContents()).toEqual(['summarize'])
    expect(await page.locator('#server').textContent()).toContain('mcp-edge-template 0.1.0')
    await browser.shot(page, 'catalog')
  })

  it('validates arguments inline, then calls add and shows its result', async () => {
    const card = await callTool(page, 'add', { a: '2' })
    // b is required: an inline error, tied to the field, and no call.
    const b = field(card, 'b')
    expect(await b.getAttribute('aria-invalid')).toBe('true')
    const errorId = (await b.getAttribute('aria-describedby')) as string
    expect(await page.locator(`#${errorId}`).textContent()).toBe('Required.')
    // Both arguments are required, and each label says so (a mark that screen readers skip).
    expect(await card.locator('label .required[aria-hidden=true]').allTextContents()).toEqual([' *', ' *'])
    expect(await card.locator('.run').count()).toBe(0)
    await b.fill('3')
    await card.getByRole('button', { name: 'Call add' }).click()
    await card.locator('.run[data-state=complete]').waitFor()
    expect(await card.locator('.result .text').textContent()).toBe('5')
    expect(await b.getAttribute('aria-invalid')).toBeNull()
    await browser.shot(page, 'add')
  })

  it('shows write_story partial results as they arrive, with their seq and progress, before the final result', async () => {
    const card = await callTool(page, 'write_story', { topic: 'a lighthouse', sentences: '0' })
    const sentences = field(card, 'sentences')
    expect(await page.locator(`#${await sentences.getAttribute('aria-describedby')}`).textContent()).toBe('Enter 1 or more.')
    await sentences.fill('100')
    await card.getByRole('button', { name: 'Call write_story' }).click()
    // Three chunks are on the page while the call has no result yet (100 sentences take 5 s or more: room for a loaded machine).
    const seen = await page.waitForFunction(
      () => {
        const run = document.querySelector('#tool-write_story .run')
        const chunks = run?.querySelectorAll('.chunk').length ?? 0
        return chunks >= 3 && run?.querySelector('.result') === null ? chunks : false
      },
      undefined,
      { polling: 20 },
    )
    expect(await seen.jsonValue()).toBeGreaterThanOrEqual(3)
    expect(await card.locator('.run progress').isVisible()).toBe(true)
    await browser.shot(page, 'write-story-streaming')
    await card.locator('.run[data-state=complete]').waitFor()
    const seqs = await seqsIn(card)
    expect(seqs).toEqual(Array.from({ length: 100 }, (_, i) => i))
    expect(await card.locator('.run progress').evaluate((bar: HTMLProgressElement) => [bar.value, bar.max])).toEqual([100, 100])
    const story = (await card.locator('.result .text').textContent()) as string
    expect(story).toContain('Sentence 1 of a story about a lighthouse.')
    expect(story).toContain('Sentence 100 of a story about a lighthouse.')
    await browser.shot(page, 'write-story-done')
  })

  it('cancels a stream: the request is aborted and the run says so', async () => {
    const card = await callTool(page, 'write_story', { topic: 'a long night', sentences: '200' })
    const run = card.locator('.run').first()
    await page.waitForFunction(
      () => (document.querySelector('#tool-write_story .run')?.querySelectorAll('.chunk').length ?? 0) >= 3,
      undefined,
      { polling: 20 },
    )
    await run.getByRole('button', { name: 'Cancel' }).click()
    await card.locator('.run[data-state=cancelled]').waitFor()
    expect(await run.locator('.status').textContent()).toMatch(/^Cancelled: the stream was closed after \d+ partial result/)
    expect(await run.locator('.result').count()).toBe(0)
  })

  it('completes delete_record through its confirmation form, and every control on the page has a label', async () => {
    const card = await callTool(page, 'delete_record', { id: 'r-42' })
    const form = card.locator('form[data-ask=confirm]')
    await form.waitFor()
    expect(await form.locator('.ask-message').textContent()).toBe('Delete record r-42? This cannot be undone.')
    // The form elicitation's fields got focus, and (like every input on the page) an accessible name.
    expect(await field(form, 'confirm').evaluate((box) => box === document.activeElement)).toBe(true)
    const labelled = await everyControlLabelled(browser.context, page)
    expect(labelled.unnamed).toEqual([])
    expect(labelled.controls).toBeGreaterThan(15)
    await browser.shot(page, 'delete-record-asks')
    await field(form, 'confirm').check()
    await field(form, 'reason').fill('duplicate')
    await form.getByRole('button', { name: 'Submit' }).click()
    await card.locator('.run[data-state=complete]').waitFor()
    expect(await card.locator('.result .text').textContent()).toBe('Record r-42 deleted (duplicate).')
    await browser.shot(page, 'delete-record-done')
  })

  it('follows generate_report as a task: live status, the partial log, the result', async () => {
    const card = await callTool(page, 'generate_report', { subject: 'edge caching', sections: '3' })
    const task = card.locator('.task')
    await task.waitFor()
    expect(await task.locator('.task-status').getAttribute('data-status')).toMatch(/^(working|completed)$/)
    await browser.shot(page, 'generate-report-task')
    await task.locator('.task-status[data-status=completed]').waitFor()
    await task.locator('.result').waitFor()
    const seqs = await seqsIn(task)
    expect(seqs).toEqual([0, 1, 2])
    expect(await task.locator('.chunk').last().locator('.seq').textContent()).toMatch(/^seq 2 \((live|log)\), final$/)
    const report = (await task.locator('.result .text').textContent()) as string
    expect(report).toContain('## Section 1\nFindings about edge caching, part 1.')
    expect(report).toContain('## Section 3\nFindings about edge caching, part 3.')
    await browser.shot(page, 'generate-report-done')
  })

  it('follows draft_article as a task and answers the question it asks mid-task', async () => {
    const card = await callTool(page, 'draft_article', { topic: 'owls' })
    const task = card.locator('.task')
    await task.locator('.task-status[data-status=input_required]').waitFor()
    const question = task.locator('form.ask')
    expect(await question.locator('.ask-message').textContent()).toBe(
      'Write the article on this outline?\n1. Why owls matters\n2. How owls works\n3. What to do next',
    )
    await browser.shot(page, 'draft-article-asks')
    await field(question, 'approve').check()
    await field(question, 'note').fill('short')
    await question.getByRole('button', { name: 'Submit' }).click()
    await task.locator('.task-status[data-status=completed]').waitFor()
    expect(await task.locator('.result .text').textContent()).toContain('## Why owls matters\n(short) A paragraph about owls.')
    await browser.shot(page, 'draft-article-done')
  })

  it('cancels a task with its button', async () => {
    const card = await callTool(page, 'generate_report', { sections: '50' })
    const task = card.locator('.run').first().locator('.task')
    await task.locator('.chunk').first().waitFor()
    await task.getByRole('button', { name: 'Cancel task' }).click()
    await task.locator('.task-status[data-status=cancelled]').waitFor()
    expect(await task.locator('.result').count()).toBe(0)
  })

  it('follows a task by id, replaying its partial log from the start', async () => {
    // A task another client started and that finished before the page looked at it.
    const client = new McpClient({
      url: inject('templateUrl'),
      capabilities: { partialResults: {}, extensions: { [TASKS_EXTENSION]: {} } },
    })
    const handle = await client.callTool('generate_report', { subject: 'replays', sections: 2 })
    const taskId = String(handle.taskId)
    for await (const note of client.listen({ taskIds: [taskId] })) {
      if (note.method === 'notifications/tasks' && note.params.status === 'completed') break
    }
    await field(page, 'Task id').fill(taskId)
    await page.getByRole('button', { name: 'Follow' }).click()
    const task = page.locator(`#followed .task[data-task-id="${taskId}"]`)
    await task.locator('.task-status[data-status=completed]').waitFor()
    await task.locator('.result').waitFor()
    expect(await task.locator('.chunk .seq').allTextContents()).toEqual(['seq 0 (log)', 'seq 1 (log), final'])
    expect(await task.locator('.result .text').textContent()).toContain('Findings about replays, part 2.')
  })

  it('runs a tool with the keyboard alone', async () => {
    const fresh = await openPlayground(browser.context, origin())
    // Tab from the top of the page to get_weather's field; the order is the page's own.
    let presses = 0
    while (!(await fresh.evaluate(() => document.activeElement?.id.startsWith('tool-get_weather-city')))) {
      await fresh.keyboard.press('Tab')
      if (++presses > 60) throw new Error('Tab never reached get_weather')
    }
    await fresh.keyboard.type('Lisbon')
    await fresh.keyboard.press('Enter')
    const card = toolCard(fresh, 'get_weather')
    await card.locator('.run[data-state=complete]').waitFor()
    expect(await card.locator('.result .text').textContent()).toMatch(/^(sunny|cloudy|rainy|windy), -?\d+ °C in Lisbon$/)
    expect(JSON.parse((await card.locator('.result pre.json').textContent()) as string)).toMatchObject({ city: 'Lisbon' })
    // Then Tab on to the Call button, and run it again with Space.
    await fresh.keyboard.press('Tab')
    expect(await fresh.evaluate(() => document.activeElement?.textContent)).toBe('Call get_weather')
    await fresh.keyboard.press('Space')
    await card.locator('.run[data-state=complete]').nth(1).waitFor()
    await browser.shot(fresh, 'keyboard-get-weather')
    await fresh.close()
  })
})

describe('the gate, and a server that needs a bearer token', () => {
  const TOKEN = 'playground-test-token-0123456789abcdef'
  let guarded: WranglerServer

  beforeAll(async () => {
    guarded = await startWrangler({ config: 'apps/demo/wrangler.jsonc', vars: { PLAYGROUND: 'off', MCP_BEARER_TOKEN: TOKEN } })
  }, 120_000)

  afterAll(async () => {
    await guarded?.stop()
  })

  it('serves no page without PLAYGROUND=on, though the assets are there', async () => {
    const base = `http://127.0.0.1:${guarded.port}`
    for (const path of ['/playground/', '/playground/app.js', '/playground/index.html']) {
      expect((await fetch(`${base}${path}`, { redirect: 'manual' })).status).toBe(404)
    }
    expect((await fetch(`${origin()}/playground/app.js`)).status).toBe(200)
  })

  it('asks for the bearer token on 401 and connects with it', async () => {
    const other = await openPlayground(browser.context, origin(), { ready: false })
    await field(other, 'MCP endpoint').fill(guarded.url)
    await other.getByRole('button', { name: 'Connect' }).click()
    await other.locator('#status', { hasText: 'Unauthorized: this server needs a bearer token' }).waitFor()
    expect(await other.evaluate(() => document.activeElement?.id)).toBe('token')
    await field(other, 'Bearer token').fill(TOKEN)
    await other.getByRole('button', { name: 'Connect' }).click()
    await other.locator('body[data-ready=true]').waitFor()
    const card = await callTool(other, 'add', { a: '20', b: '22' })
    await card.locator('.run[data-state=complete]').waitFor()
    expect(await card.locator('.result .text').textContent()).toBe('42')
    await browser.shot(other, 'bearer-token')
    await other.close()
  })
})

describe('another server (the conformance fixture)', () => {
  /** The playground page pointed at the fixture server (another origin: CORS allows loopback pages). */
  async function openOnFixture(): Promise<Page> {
    const other = await openPlayground(browser.context, origin(), { ready: false })
    await field(other, 'MCP endpoint').fill(inject('fixtureUrl'))
    await other.getByRole('button', { name: 'Connect' }).click()
    await other.locator('body[data-ready=true]').waitFor()
    return other
  }

  it('builds forms from richer schemas (an enum as a select, a $ref as JSON) and sends x-mcp-header arguments as headers', async () => {
    const other = await openOnFixture()
    const card = toolCard(other, 'json_schema_2020_12_tool')
    expect(
      await field(card, 'contactMethod').evaluate((select: HTMLSelectElement) => [...select.options].map((o) => o.text)),
    ).toEqual(['(none)', 'phone', 'email'])
    expect(await field(card, 'address').evaluate((area) => area.tagName)).toBe('TEXTAREA')
    await field(card, 'address').fill('{"city": "Lisbon"')
    await card.getByRole('button', { name: 'Call json_schema_2020_12_tool' }).click()
    expect(await other.locator(`#${await field(card, 'address').getAttribute('aria-describedby')}`).textContent()).toBe(
      'Enter valid JSON.',
    )
    await field(card, 'address').fill('{"city": "Lisbon"}')
    await field(card, 'contactMethod').selectOption({ label: 'email' })
    await field(card, 'email').fill('ada@example.com')
    await card.getByRole('button', { name: 'Call json_schema_2020_12_tool' }).click()
    await card.locator('.run[data-state=complete]').waitFor()
    expect(JSON.parse(((await card.locator('.result .text').textContent()) as string).replace(/^Received /, ''))).toEqual({
      address: { city: 'Lisbon' },
      contactMethod: 'email',
      email: 'ada@example.com',
    })
    // region is mirrored in Mcp-Param-Region: a non-ASCII value goes out base64-spelled, and the server accepts it.
    const echo = await callTool(other, 'test_header_echo', { region: 'Zürich', count: '3' })
    await echo.locator('.run[data-state=complete]').waitFor()
    expect(await echo.locator('.result .text').textContent()).toBe('region=Zürich count=3')
    await browser.shot(other, 'fixture-schemas')
    await other.close()
  })

  it('reads through a resource template, gets a prompt, shows an image, runs two input rounds and a URL question, and cancels a call the tool sees end', async () => {
    const other = await openOnFixture()
    const template = other.locator('#templates article').filter({ hasText: 'test://template/{id}/data' })
    await field(template, 'id').fill('abc')
    await template.getByRole('button', { name: 'Read' }).click()
    await template.locator('.result').waitFor()
    expect(await template.locator('.result .uri').textContent()).toContain('test://template/abc/data')
    const prompt = other.locator('#prompt-test_prompt_with_arguments')
    await field(prompt, 'arg1').fill('one')
    await field(prompt, 'arg2').fill('two')
    await prompt.getByRole('button', { name: 'Get test_prompt_with_arguments' }).click()
    await prompt.locator('.result').waitFor()
    expect(await prompt.locator('.result').textContent()).toBe("user: Prompt with arguments: arg1='one', arg2='two'")
    // Results with an image, and a call that asks in two rounds: the loop runs until it completes.
    const mixed = await callTool(other, 'test_multiple_content_types')
    await mixed.locator('.run[data-state=complete]').waitFor()
    expect(await mixed.locator('.result img').evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(
      true,
    )
    const rounds = await callTool(other, 'test_input_required_result_multi_round')
    await field(rounds.locator('form[data-ask=step1]'), 'name').fill('Ada')
    await rounds.locator('form[data-ask=step1]').getByRole('button', { name: 'Submit' }).click()
    await field(rounds.locator('form[data-ask=step2]'), 'color').fill('teal')
    await rounds.locator('form[data-ask=step2]').getByRole('button', { name: 'Submit' }).click()
    await rounds.locator('.run[data-state=complete]').waitFor()
    expect(await rounds.locator('.result .text').textContent()).toBe('Ada likes teal')
    // A URL elicitation: a link to open, then Done.
    const url = await callTool(other, 'open_url')
    const question = url.locator('[data-ask=page]')
    expect(await question.getByRole('link').getAttribute('href')).toBe('https://example.com/setup')
    expect(await question.getByRole('link').getAttribute('rel')).toBe('noopener noreferrer')
    await question.getByRole('button', { name: 'Done' }).click()
    await url.locator('.run[data-state=complete]').waitFor()
    expect(await url.locator('.result .text').textContent()).toBe('answered: accept')
    await browser.shot(other, 'fixture-templates-prompts-rounds-url')
    // Cancel closes the stream, and the tool sees its signal abort (the fixture's probe records it).
    const waiting = await callTool(other, 'wait_for_abort', { key: 'playground-cancel' })
    await waiting.locator('.run progress:visible').waitFor()
    expect(await waiting.locator('.run .progress-text').textContent()).toBe(' 1 / 2 waiting')
    await waiting.getByRole('button', { name: 'Cancel' }).click()
    await waiting.locator('.run[data-state=cancelled]').waitFor()
    let seen = 'false'
    for (const deadline = Date.now() + 20_000; seen === 'false' && Date.now() < deadline; ) {
      // The server learns of the closed connection asynchronously; ask until it has (at most 20 s).
      await new Promise((done) => setTimeout(done, 50))
      const status = await rpc(fetch, inject('fixtureUrl'), 'tools/call', {
        name: 'abort_status',
        arguments: { key: 'playground-cancel' },
      })
      seen = status.message.result.content[0].text
    }
    expect(seen).toBe('true')
    await other.close()
  })
})
