/**
 * The release's moving parts that can drift without a release to show it: the templates pinned to
 * the library's version (scripts/release/pin-templates.mjs, which `npm run version-packages`
 * runs after `changeset version`), and the packages' changelogs and metadata that
 * `npm publish --provenance` needs.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { pinTemplates } from '../../scripts/release/pin-templates.mjs'

const ROOT = resolve(import.meta.dirname, '../..')
const TEMPLATES = ['minimal', 'durable', 'oauth']
const json = (path: string) => JSON.parse(readFileSync(path, 'utf8'))
const scratch = mkdtempSync(join(tmpdir(), 'mcp-edge-release-'))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

describe('release', () => {
  it('pins every template to the library version in this repository', () => {
    const { version, stale } = pinTemplates(ROOT, { check: true })
    expect(stale).toEqual([])
    for (const template of TEMPLATES)
      expect(json(join(ROOT, 'templates', template, 'package.json')).dependencies['mcp-edge']).toBe(`^${version}`)
  })

  it('repins the templates (dependency and README tag links) after a version bump', () => {
    for (const part of ['packages/mcp-edge/package.json', ...TEMPLATES.map((t) => `templates/${t}`)])
      cpSync(join(ROOT, part), join(scratch, part), { recursive: true, filter: (path) => !path.includes('node_modules') })
    const library = json(join(scratch, 'packages/mcp-edge/package.json'))
    writeFileSync(join(scratch, 'packages/mcp-edge/package.json'), JSON.stringify({ ...library, version: '0.3.0' }))
    const checked = pinTemplates(scratch, { check: true })
    expect(checked.stale).toHaveLength(TEMPLATES.length * 2)
    expect(json(join(scratch, 'templates/minimal/package.json')).dependencies['mcp-edge']).toBe(`^${library.version}`)
    pinTemplates(scratch)
    expect(pinTemplates(scratch, { check: true }).stale).toEqual([])
    for (const template of TEMPLATES) {
      expect(json(join(scratch, 'templates', template, 'package.json')).dependencies['mcp-edge']).toBe('^0.3.0')
      const readme = readFileSync(join(scratch, 'templates', template, 'README.md'), 'utf8')
      expect(readme).toContain(`tree/v0.3.0/templates/${template}`)
      expect(readme).toContain(`templates/${template}#v0.3.0`)
      expect(readme).not.toMatch(/tree\/v0\.1\.0|#v0\.1\.0/)
    }
  })

  it.each(['mcp-edge', 'create-mcp-edge'])('%s ships a changelog with its version and names its repository', (name) => {
    const dir = join(ROOT, 'packages', name)
    const pkg = json(join(dir, 'package.json'))
    expect(pkg.files).toContain('CHANGELOG.md')
    expect(readFileSync(join(dir, 'CHANGELOG.md'), 'utf8')).toMatch(new RegExp(`^## ${pkg.version.replaceAll('.', '\\.')}$`, 'm'))
    // npm publish --provenance checks the repository against the workflow's.
    expect(pkg.repository).toEqual({
      type: 'git',
      url: 'git+https://github.com/mcp-edge/mcp-edge.git',
      directory: `packages/${name}`,
    })
  })
})
