/**
 * A real browser for the playground tests: Debian's Chromium (/usr/bin/chromium, installed by
 * .ci/run when missing) driven by playwright-core, headless, with a fresh profile directory per
 * launch, as root (hence --no-sandbox). Screenshots go to screenshots/<name>/ (git-ignored, emptied
 * at each launch); the tests print their paths at the end.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative, resolve } from 'node:path'
import { chromium } from 'playwright-core'
import type { BrowserContext, Locator, Page } from 'playwright-core'

const ROOT = resolve(import.meta.dirname, '../..')
export const CHROMIUM = '/usr/bin/chromium'

const FLAGS = [
  '--no-sandbox',
  '--headless',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]

export interface Browser {
  context: BrowserContext
  /** Take a full-page screenshot named `name`.png (or of `element` alone); returns its path. */
  shot(page: Page, name: string, element?: Locator): Promise<string>
  /** Every screenshot taken, relative to the repository root. */
  shots: string[]
  close(): Promise<void>
}

/** Launch Chromium; `name` is the screenshots folder (one per test file). */
export async function launchBrowser(name = 'playground'): Promise<Browser> {
  const folder = join(ROOT, 'screenshots', name)
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium (.ci/run does this)`)
  const profile = mkdtempSync(join(tmpdir(), 'mcp-edge-chromium-'))
  rmSync(folder, { recursive: true, force: true })
  mkdirSync(folder, { recursive: true })
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: FLAGS,
    viewport: { width: 1200, height: 900 },
  })
  const shots: string[] = []
  return {
    context,
    shots,
    async shot(page, name, element) {
      const path = join(folder, `${String(shots.length + 1).padStart(2, '0')}-${name}.png`)
      if (element) await element.screenshot({ path })
      else await page.screenshot({ path, fullPage: true })
      shots.push(relative(ROOT, path))
      return path
    },
    async close() {
      await context.close()
      rmSync(profile, { recursive: true, force: true })
    },
  }
}
