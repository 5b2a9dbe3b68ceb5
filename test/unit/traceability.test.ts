/**
 * The SEP-2998 traceability file stays true: every check it names is a test somewhere under
 * test/ (a test whose name starts with the check id), and every row has a check or a reason.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

const root = resolve(import.meta.dirname, '..')

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? testFiles(join(dir, entry.name)) : entry.name.endsWith('.test.ts') ? [join(dir, entry.name)] : [],
  )
}

describe('test/conformance/sep-2998.yaml', () => {
  const yaml = readFileSync(join(root, 'conformance/sep-2998.yaml'), 'utf8')
  const rows = yaml.split('\n  - ').slice(1)
  const sources = testFiles(root).map((file) => readFileSync(file, 'utf8'))

  it('has a check or an exclusion reason on every row', () => {
    expect(rows.length).toBeGreaterThanOrEqual(15)
    for (const row of rows) expect(/^check: |\n {4}excluded: /.test(row), row).toBe(true)
  })

  it('names only checks that exist as tests', () => {
    const checks = rows.flatMap((row) => /^check: (\S+)/.exec(row)?.[1] ?? [])
    for (const check of checks) {
      const found = sources.some((source) => new RegExp(`\\bit\\((['"\`])${check}[:'"\` ]`).test(source))
      expect(found, `no test named ${check}`).toBe(true)
    }
  })
})
