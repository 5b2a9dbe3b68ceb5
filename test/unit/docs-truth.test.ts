/**
 * What the docs say, checked against what ships. (1) Every docs reference in the runtime's own
 * messages (string literals in packages/mcp-edge/src and bin/ naming `docs/<file>.md`, an
 * `#anchor` of it, or `README, "<section>"`) resolves in what `npm pack` puts in the tarball (the
 * package's `files`): the file is packed, the heading exists. (2) docs/deploy.md's migrations
 * block is the durable template's.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

const ROOT = resolve(import.meta.dirname, '../..')
const PACKAGE = join(ROOT, 'packages/mcp-edge')
const { files } = JSON.parse(readFileSync(join(PACKAGE, 'package.json'), 'utf8')) as { files: string[] }
const read = (path: string) => readFileSync(path, 'utf8')

/** Source text without comments: block comments, and `//` comments that start a line or follow a space. */
const code = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|\s)\/\/.*$/gm, '$1')

/** The docs references inside string literals ('…', "…", `…`) of the runtime's code. */
function references() {
  const found: { at: string; file: string; anchor?: string | undefined; section?: string | undefined }[] = []
  for (const dir of ['src', 'bin']) {
    for (const name of readdirSync(join(PACKAGE, dir), { recursive: true, encoding: 'utf8' })) {
      if (!/\.(ts|mjs)$/.test(name)) continue
      const path = join(PACKAGE, dir, name)
      for (const [literal] of code(read(path)).matchAll(/'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|`(?:[^`\\]|\\.)*`/g)) {
        const at = relative(PACKAGE, path)
        for (const [, file, anchor] of literal.matchAll(/\bdocs\/([\w-]+\.md)(?:#([\w-]+))?/g))
          found.push({ at, file: `docs/${file}`, anchor })
        for (const [, section] of literal.matchAll(/\bREADME\b(?:, "([^"]+)")?/g)) found.push({ at, file: 'README.md', section })
      }
    }
  }
  return found
}

/** GitHub's anchors for a Markdown file's headings. */
function anchors(markdown: string) {
  const seen = new Map<string, number>()
  const out = new Set<string>()
  for (const [, heading] of markdown.replace(/^```[\s\S]*?^```$/gm, '').matchAll(/^#{1,6} +(.+?) *$/gm)) {
    const slug = (heading ?? '')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-')
    const count = seen.get(slug) ?? 0
    seen.set(slug, count + 1)
    out.add(count === 0 ? slug : `${slug}-${count}`)
  }
  return out
}

/** Packed: README.md and package.json always; otherwise a path under one of `files`. */
const packed = (file: string) => file === 'README.md' || files.some((entry) => file === entry || file.startsWith(`${entry}/`))

describe("the runtime's messages point to docs that ship", () => {
  const found = references()

  it('finds the references (a message that names docs is caught)', () => {
    expect(found).toContainEqual({ at: 'src/cloudflare/events.ts', file: 'docs/deploy.md', anchor: 'configuration' })
    expect(found).toContainEqual({ at: 'src/server/methods/context.ts', file: 'docs/multi-round-trip.md', anchor: undefined })
  })

  it('each names a packed file and, where it gives one, an existing heading', () => {
    const broken = found.flatMap(({ at, file, anchor, section }) => {
      if (!packed(file)) return [`${at}: ${file} is not in package.json "files"`]
      let markdown: string
      try {
        markdown = read(join(PACKAGE, file))
      } catch {
        return [`${at}: ${file} does not exist`]
      }
      if (anchor && !anchors(markdown).has(anchor)) return [`${at}: ${file} has no heading #${anchor}`]
      if (section && !new RegExp(`^#{1,6} +${section.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} *$`, 'm').test(markdown))
        return [`${at}: ${file} has no section "${section}"`]
      return []
    })
    expect(broken).toEqual([])
  })

  it('computes anchors as GitHub does', () => {
    expect(
      anchors('# Deploy, configure and upgrade\n## Deploy to production\n```\n# not a heading\n```\n## Deploy to production'),
    ).toEqual(new Set(['deploy-configure-and-upgrade', 'deploy-to-production', 'deploy-to-production-1']))
  })
})

describe('docs/deploy.md and the durable template', () => {
  it('give the same Durable Object migrations', () => {
    const deploy = read(join(PACKAGE, 'docs/deploy.md'))
    const block = /^```jsonc\n("migrations": \[[\s\S]*?\])\n```$/m.exec(deploy)?.[1]
    expect(block, 'docs/deploy.md has a ```jsonc block of "migrations"').toBeTypeOf('string')
    const documented = JSON.parse(`{${block}}`).migrations
    const config = read(join(ROOT, 'templates/durable/wrangler.jsonc')).replace(/^\s*\/\/.*$/gm, '')
    expect(documented).toEqual(JSON.parse(config).migrations)
    // Nothing else in the page gives a class a tag of its own.
    expect(deploy.replace(block ?? '', '')).not.toMatch(/migration `v\d+`/)
  })
})
