/**
 * docs/migrate.md's code compiles: every ```ts block, each a module of its own, typechecked
 * against the built package (`npm run build` first; `mcp-edge` resolves to packages/mcp-edge's
 * exports, as a user's import does) with the Workers runtime types and `skipLibCheck: false`. The
 * pack check compiles the same blocks against the packed tarball; this is the quick loop. Its
 * `diff` blocks may change import lines only, and only to `mcp-edge/sdk` (the guide's promise).
 */
import { spawnSync } from 'node:child_process'
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

const ROOT = resolve(import.meta.dirname, '../..')
const GUIDE = readFileSync(join(ROOT, 'packages/mcp-edge/docs/migrate.md'), 'utf8')
const OUT = join(ROOT, 'node_modules/.cache/mcp-edge-migrate-docs')
const blocks = (language: string) =>
  [...GUIDE.matchAll(new RegExp(`^\`\`\`${language}\\n([\\s\\S]*?)^\`\`\`$`, 'gm'))].map((match) => match[1] as string)

describe('docs/migrate.md', () => {
  it('compiles every ts block against the built mcp-edge (skipLibCheck off)', () => {
    const ts = blocks('ts')
    expect(ts.length).toBeGreaterThanOrEqual(5)
    rmSync(OUT, { recursive: true, force: true })
    mkdirSync(OUT, { recursive: true })
    const files = ts.map((block, index) => {
      writeFileSync(join(OUT, `block-${index + 1}.ts`), block)
      return `block-${index + 1}.ts`
    })
    const compilerOptions = {
      ...JSON.parse(readFileSync(join(ROOT, 'tsconfig.base.json'), 'utf8').replace(/^\s*\/\/.*$/gm, '')).compilerOptions,
    }
    Object.assign(compilerOptions, { skipLibCheck: false, noImplicitOverride: false, noUnusedLocals: false })
    const config = { compilerOptions, files: [...files, join(ROOT, 'types/workers-runtime.d.ts')] }
    writeFileSync(join(OUT, 'tsconfig.json'), JSON.stringify(config))
    const run = spawnSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', OUT], { encoding: 'utf8' })
    expect(`${run.stdout}${run.stderr}`).toBe('')
    expect(run.status).toBe(0)
  }, 120_000)

  it('changes only import lines in its diff blocks, and only to mcp-edge/sdk', () => {
    const diffs = blocks('diff')
    expect(diffs.length).toBeGreaterThanOrEqual(4)
    for (const diff of diffs) {
      for (const line of diff.trimEnd().split('\n')) {
        expect(line, diff).toMatch(/^[-+]import /)
        if (line.startsWith('+')) expect(line, diff).toMatch(/ from 'mcp-edge\/sdk'$/)
      }
    }
  })
})
