/**
 * Helpers for driving the playground page in tests: open it (and wait until it has listed what
 * the server offers), find a tool's card, and read Chromium's accessibility tree to check that
 * every form control has an accessible name.
 */
import type { BrowserContext, Locator, Page } from 'playwright-core'

/** Open `<origin>/playground/`; by default wait until it connected and rendered its lists. */
export async function openPlayground(context: BrowserContext, origin: string, options: { ready?: boolean } = {}): Promise<Page> {
  const page = await context.newPage()
  const errors: string[] = []
  page.on('pageerror', (error) => errors.push(error.message))
  await page.goto(`${origin}/playground/`)
  if (options.ready !== false) {
    await page
      .locator('body[data-ready=true]')
      .waitFor()
      .catch((error) => {
        throw new Error(`the playground did not connect (${error.message}); status: page errors: ${errors.join('; ')}`)
      })
  }
  return page
}

export const toolCard = (page: Page, name: string): Locator => page.locator(`#tool-${name}`)

/** The control labelled `name` (a required field's label ends with a " *" the accessibility tree does not read; a checkbox's label starts with a space). */
export const field = (scope: Locator | Page, name: string): Locator =>
  scope.getByLabel(new RegExp(`^\\s*${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}( \\*)?\\s*$`))

/** Fill a tool's form (label → value) and press its Call button; returns the tool's card. */
export async function callTool(page: Page, name: string, values: Record<string, string> = {}): Promise<Locator> {
  const card = toolCard(page, name)
  for (const [label, value] of Object.entries(values)) await field(card, label).fill(value)
  await card.getByRole('button', { name: `Call ${name}` }).click()
  return card
}

/** The `seq` of each partial result shown in `scope`, in page order. */
export const seqsIn = (scope: Locator): Promise<number[]> =>
  scope.locator('.chunk').evaluateAll((items) => items.map((item) => Number((item as HTMLElement).dataset.seq)))

/** Roles of the controls a user fills in or toggles (Chromium's accessibility tree). */
const CONTROL_ROLES = new Set([
  'textbox',
  'spinbutton',
  'checkbox',
  'combobox',
  'listbox',
  'radio',
  'searchbox',
  'slider',
  'switch',
])

/**
 * Every form control in the accessibility tree, and those without an accessible name. The count
 * is checked against the DOM's own count of rendered inputs, selects and text areas, so a control
 * the tree left out cannot pass unnoticed.
 */
export async function everyControlLabelled(
  context: BrowserContext,
  page: Page,
): Promise<{ controls: number; unnamed: string[] }> {
  const cdp = await context.newCDPSession(page)
  try {
    const { nodes } = (await cdp.send('Accessibility.getFullAXTree')) as {
      nodes: Array<{ ignored: boolean; role?: { value: string }; name?: { value: string }; backendDOMNodeId?: number }>
    }
    const controls = nodes.filter((node) => !node.ignored && CONTROL_ROLES.has(node.role?.value ?? ''))
    const unnamed = controls
      .filter((node) => !node.name?.value.trim())
      .map((node) => `${node.role?.value} (DOM node ${node.backendDOMNodeId})`)
    const inDom = await page.evaluate(
      () =>
        [...document.querySelectorAll('input:not([type=hidden]), select, textarea')].filter((el) => el.checkVisibility()).length,
    )
    if (inDom !== controls.length) unnamed.push(`${inDom} controls in the DOM, ${controls.length} in the accessibility tree`)
    return { controls: controls.length, unnamed }
  } finally {
    await cdp.detach()
  }
}
