/**
 * The release's moving parts that can drift without a release to show it: one version for the
 * repository (scripts/release/sync-versions.mjs, which `npm run version-packages` runs after
 * `changeset version`), and the packages' changelogs and the metadata `npm publish --provenance`
 * needs.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { syncVersions } from '../../scripts/release/sync-versions.mjs'

const ROOT = resolve(import.meta.dirname, '../..')
const TEMPLATES = ['minimal', 'durable', 'oauth']
const json = (path: string) => JSON.parse(readFileSync(path, 'utf8'))
const scratch = mkdtempSync(join(tmpdir(), 'mcp-edge-release-'))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

describe('release', () => {
  it('has the repository at the library version', () => {
    expect(syncVersions(ROOT, { check: true }).stale).toEqual([])
  })

  it('brings the root, the templates, their server.json and README tag links to a bumped version', () => {
    for (const part of ['package.json', 'packages/mcp-edge/package.json', ...TEMPLATES.map((t) => `templates/${t}`)])
      cpSync(join(ROOT, part), join(scratch, part), { recursive: true, filter: (path) => !path.includes('node_modules') })
    const library = json(join(scratch, 'packages/mcp-edge/package.json'))
    writeFileSync(join(scratch, 'packages/mcp-edge/package.json'), JSON.stringify({ ...library, version: '0.3.0' }))
    const files = [...TEMPLATES]
      .sort()
      .flatMap((t) => ['package.json', 'server.json', 'README.md'].map((f) => `templates/${t}/${f}`))
    expect(syncVersions(scratch, { check: true }).stale).toEqual(['package.json', ...files])
    expect(json(join(scratch, 'templates/minimal/package.json')).version).toBe(library.version)
    syncVersions(scratch)
    expect(syncVersions(scratch, { check: true }).stale).toEqual([])
    expect(json(join(scratch, 'package.json')).version).toBe('0.3.0')
    for (const template of TEMPLATES) {
      const dir = join(scratch, 'templates', template)
      expect(json(join(dir, 'package.json'))).toMatchObject({ version: '0.3.0', dependencies: { 'mcp-edge': '^0.3.0' } })
      expect(json(join(dir, 'server.json')).version).toBe('0.3.0')
      const readme = readFileSync(join(dir, 'README.md'), 'utf8')
      expect(readme).toContain(`tree/v0.3.0/templates/${template}`)
      expect(readme).toContain(`templates/${template}#v0.3.0`)
      expect(readme).not.toMatch(/tree\/v0\.1\.0|#v0\.1\.0/)
    }
  })

  it('runs, in its workflows, scripts that exist: .ci/run for CI; version-packages and release for releases', () => {
    const scripts = json(join(ROOT, 'package.json')).scripts
    expect(readFileSync(join(ROOT, '.github/workflows/ci.yml'), 'utf8')).toMatch(/^\s+run: bash \.ci\/run$/m)
    const release = readFileSync(join(ROOT, '.github/workflows/release.yml'), 'utf8')
    const commands = [...release.matchAll(/^\s+(version|publish): npm run ([\w-]+)$/gm)].map(([, step, script]) => [step, script])
    expect(commands).toEqual([
      ['version', 'version-packages'],
      ['publish', 'release'],
    ])
    expect(scripts['version-packages']).toBe(
      'changeset version && node scripts/release/sync-versions.mjs && npm install --package-lock-only --no-audit --no-fund',
    )
    expect(scripts.release).toBe('npm run build && node scripts/release/publish.mjs')
    expect(release).toMatch(/id-token: write/) // npm publish --provenance needs the OIDC token
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
