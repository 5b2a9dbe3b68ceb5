/**
 * Every template README's Deploy button and `npm create cloudflare` command are the ones derived
 * from the root package.json's repository and version (scripts/lib/links.mjs), pinned to the tag
 * `v<version>`; the templates and the packages carry the same version.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { c3Command, deployUrl, REPOSITORY, TAG } from '../../scripts/lib/links.mjs'

const ROOT = resolve(import.meta.dirname, '../..')
const json = (path: string) => JSON.parse(readFileSync(join(ROOT, path), 'utf8'))
const templates = readdirSync(join(ROOT, 'templates'))

describe('links to the templates', () => {
  it('come from the root repository field and version', () => {
    expect(REPOSITORY).toMatch(/^[\w.-]+\/[\w.-]+$/)
    expect(TAG).toBe(`v${json('package.json').version}`)
    expect(templates.sort()).toEqual(['durable', 'minimal', 'oauth'])
  })

  it.each(templates)(
    'templates/%s/README.md has its Deploy button and create-cloudflare command, pinned to the tag',
    (template) => {
      const readme = readFileSync(join(ROOT, 'templates', template, 'README.md'), 'utf8')
      expect(readme).toContain(`(${deployUrl(template)})`)
      expect(readme).toContain(c3Command(template))
      expect(readme).toContain(`npm create mcp-edge@latest my-mcp-server -- --template ${template}`)
      // A README a person finishes (STYLE "Library and templates"); durable's, with the most to explain, is the longest.
      expect(readme.split('\n').length).toBeLessThanOrEqual(80)
    },
  )

  it('versions the templates and both packages together', () => {
    const version = json('package.json').version
    for (const path of ['packages/mcp-edge', 'packages/create-mcp-edge', ...templates.map((t) => `templates/${t}`)]) {
      expect(json(`${path}/package.json`).version, path).toBe(version)
    }
    for (const template of templates) {
      expect(json(`templates/${template}/package.json`).dependencies['mcp-edge'], template).toBe(`^${version}`)
    }
  })
})
