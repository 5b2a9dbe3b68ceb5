#!/usr/bin/env node
/**
 * create-mcp-edge: start an MCP server on Cloudflare Workers from one of mcp-edge's templates.
 *
 *   npm create mcp-edge@latest my-server -- --template minimal|durable|oauth
 *
 * Copies the template bundled in this package (offline: the templates ship in its tarball,
 * versioned with the library), names the package and the Worker after the folder, restores its
 * dotfiles, writes a fresh development state key into `.dev.vars` (git-ignored), installs (unless
 * `--no-install`) and prints what to run next. It asks only for what it was not told, and only
 * when standard input is a terminal. Bad input writes nothing; a failed install removes what it
 * wrote. No dependencies: Node's own modules only.
 */
import { spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { basename, dirname, isAbsolute, join, resolve } from 'node:path'
import { createInterface } from 'node:readline/promises'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'

const HERE = dirname(fileURLToPath(import.meta.url))
/** The templates in this package's tarball (prepack.mjs puts them there), or the repository's own when run from a clone. */
const TEMPLATE_ROOT = existsSync(join(HERE, 'templates')) ? join(HERE, 'templates') : join(HERE, '../../templates')
/** What a project makes for itself, never copied (a clone's templates may have them). */
const SKIP = new Set(['node_modules', '.wrangler', 'dist', 'assets', '.dev.vars'])
const TEMPLATES = {
  minimal: 'one tool, no Durable Objects, an optional bearer token',
  durable: 'a confirmation (MRTR), a streaming tool, a durable task, notes heard on every isolate',
  oauth: 'its own OAuth 2.1 authorization server in front of the MCP endpoint',
}
/** A Worker name (what Cloudflare allows) that is also a valid npm package name. */
const NAME = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/
/** What npm leaves out of a tarball, stored under another name in the templates (see prepack.mjs). */
const DOTFILES = { _gitignore: '.gitignore' }
const USAGE = `Usage: npm create mcp-edge@latest <folder> -- [--template ${Object.keys(TEMPLATES).join('|')}] [--no-install] [--mcp-edge <npm spec>]

  <folder>            where to create the project (new or empty); its name becomes the package's,
                      the Worker's and the server's name
  --template, -t      which template (default: minimal)
  --no-install        do not run npm install
  --mcp-edge <spec>   install mcp-edge from this version, range or tarball path
  --help, -h          this text

Templates:
${Object.entries(TEMPLATES)
  .map(([name, what]) => `  ${name.padEnd(9)} ${what}`)
  .join('\n')}`

class UsageError extends Error {}

function parse(argv) {
  try {
    return parseArgs({
      args: argv,
      allowPositionals: true,
      allowNegative: true,
      options: {
        template: { type: 'string', short: 't' },
        install: { type: 'boolean', default: true },
        'mcp-edge': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    })
  } catch (error) {
    throw new UsageError(error.message)
  }
}

/** Ask on a terminal; never anywhere else. */
async function ask(question, fallback) {
  if (!process.stdin.isTTY) return fallback
  const rl = createInterface({ input: process.stdin, output: process.stdout })
  try {
    return (await rl.question(`${question} `)).trim() || fallback
  } finally {
    rl.close()
  }
}

function checkName(name) {
  if (!NAME.test(name)) {
    throw new UsageError(
      `"${name}" cannot name a Worker and a package: use lowercase letters, digits and dashes (at most 63, no dash first or last), e.g. "${
        name
          .toLowerCase()
          .replace(/[^a-z0-9-]+/g, '-')
          .replace(/^-+|-+$/g, '')
          .slice(0, 63) || 'my-mcp-server'
      }"`,
    )
  }
}

/** `--mcp-edge`: a path (to a tarball or folder) becomes an absolute `file:` spec; anything else is npm's. */
function mcpEdgeSpec(spec) {
  const looksLikePath = spec.startsWith('.') || isAbsolute(spec) || spec.endsWith('.tgz') || spec.startsWith('file:')
  if (!looksLikePath) return spec
  const path = resolve(spec.replace(/^file:/, ''))
  if (!existsSync(path)) throw new UsageError(`--mcp-edge ${spec}: no such file (${path})`)
  return `file:${path}`
}

const editJson = (file, edit) => {
  const value = JSON.parse(readFileSync(file, 'utf8'))
  edit(value)
  writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`)
}

/** Files that carry the template's name: the package, the Worker, the server, its README and server.json. */
const NAMED = /\.(ts|json|jsonc|md)$/

/**
 * Names the project after its folder: `mcp-edge-<template>` (the package, the Worker's `name`, the
 * server's `name`, the README's heading, server.json's `io.github.your-username/…`, the tests that
 * check them) and the title `mcp-edge <template>` become `name`, in every text file it copied.
 */
function nameProject(dir, template, name) {
  const id = new RegExp(`\\bmcp-edge-${template}\\b`, 'g')
  const title = new RegExp(`\\bmcp-edge ${template}\\b`, 'gi')
  for (const file of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    if (!NAMED.test(file) || file.endsWith('.d.ts')) continue
    const path = join(dir, file)
    const text = readFileSync(path, 'utf8')
    const named = text.replace(id, name).replace(title, name)
    if (named !== text) writeFileSync(path, named)
  }
  if (!readFileSync(join(dir, 'wrangler.jsonc'), 'utf8').includes(`"name": "${name}"`))
    throw new Error(`the ${template} template's wrangler.jsonc has no "name": "mcp-edge-${template}" to set`)
}

/** .dev.vars from .dev.vars.example: a fresh MCP_STATE_KEYS; everything else as the example has it. */
function writeDevVars(dir) {
  const example = join(dir, '.dev.vars.example')
  if (!existsSync(example)) return false
  const key = `dev:${randomBytes(32).toString('base64')}`
  const text = readFileSync(example, 'utf8').replace(/^MCP_STATE_KEYS=.*$/m, `MCP_STATE_KEYS="${key}"`)
  writeFileSync(join(dir, '.dev.vars'), text)
  return true
}

function scaffold(template, target, name, spec) {
  cpSync(join(TEMPLATE_ROOT, template), target, { recursive: true, filter: (path) => !SKIP.has(basename(path)) })
  for (const [stored, real] of Object.entries(DOTFILES)) {
    if (existsSync(join(target, stored))) renameSync(join(target, stored), join(target, real))
  }
  nameProject(target, template, name)
  editJson(join(target, 'package.json'), (pkg) => {
    pkg.name = name
    if (spec) pkg.dependencies['mcp-edge'] = spec
  })
  writeDevVars(target)
}

function nextSteps(folder, name, installed) {
  const url = 'http://127.0.0.1:8787/mcp'
  const steps = [
    [
      installed ? `cd ${folder}` : `cd ${folder} && npm install`,
      installed ? 'your project' : 'your project and its dependencies',
    ],
    ['npm run dev', `serves ${url} (PORT=… to change)`],
    ['npm test', 'its tests, inside workerd'],
  ]
  const width = Math.max(...steps.map(([command]) => command.length)) + 2
  return `
Created ${name} in ${folder}.

Next:
${steps.map(([command, what]) => `  ${command.padEnd(width)}# ${what}`).join('\n')}

Connect a client to ${url}:
  Claude Code   claude mcp add --transport http ${name} ${url}
  VS Code       .vscode/mcp.json: { "servers": { "${name}": { "type": "http", "url": "${url}" } } }
  Inspector     npx @modelcontextprotocol/inspector --cli ${url} --method tools/list

Deploy: npx wrangler deploy (README.md says which secrets to set first).`
}

async function main(argv) {
  const { values, positionals } = parse(argv)
  if (values.help) return console.log(USAGE)
  if (positionals.length > 1) throw new UsageError(`one folder, please (got ${positionals.join(', ')})`)
  const folder = positionals[0] ?? (await ask('Folder for the new server (e.g. my-mcp-server):', undefined))
  if (!folder) throw new UsageError('name the folder to create, e.g. `npm create mcp-edge@latest my-mcp-server`')
  const template = values.template ?? (await ask(`Template (${Object.keys(TEMPLATES).join(', ')}) [minimal]:`, 'minimal'))
  if (!Object.hasOwn(TEMPLATES, template)) {
    throw new UsageError(`unknown template "${template}"; choose one of: ${Object.keys(TEMPLATES).join(', ')}`)
  }
  const target = resolve(folder)
  const name = basename(target)
  checkName(name)
  refuseExisting(target)
  const spec = values['mcp-edge'] === undefined ? undefined : mcpEdgeSpec(values['mcp-edge'])

  const created = !existsSync(target)
  const undo = () => (created ? rmSync(target, { recursive: true, force: true }) : emptyDir(target))
  mkdirSync(target, { recursive: true })
  try {
    scaffold(template, target, name, spec)
  } catch (error) {
    undo()
    throw error
  }
  if (values.install) {
    console.log(`Installing dependencies in ${folder} (npm install)…`)
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm'
    const run = spawnSync(npm, ['install', '--no-fund', '--no-audit'], { cwd: target, stdio: 'inherit' })
    if (run.status !== 0) {
      undo()
      throw new Error(
        `npm install failed (exit ${run.status ?? run.signal}): is the npm registry reachable? Removed ${target}; run again, or pass --no-install and install later.`,
      )
    }
  }
  console.log(nextSteps(folder, name, values.install))
}

/** Only a new or empty folder: never overwrite, never mix a template into someone's files. */
function refuseExisting(target) {
  if (!existsSync(target)) return
  if (!statSync(target).isDirectory())
    throw new UsageError(`${target} exists and is a file, not a folder; nothing was written. Choose another name.`)
  const entries = readdirSync(target)
  if (entries.length > 0) {
    throw new UsageError(
      `${target} exists and is not empty (${entries.length} ${entries.length === 1 ? 'entry' : 'entries'}); nothing was written. Choose a new folder, or empty this one first.`,
    )
  }
}

function emptyDir(dir) {
  for (const entry of readdirSync(dir)) rmSync(join(dir, entry), { recursive: true, force: true })
}

main(process.argv.slice(2)).catch((error) => {
  console.error(`create-mcp-edge: ${error.message}`)
  if (error instanceof UsageError) console.error(`\n${USAGE}`)
  process.exit(error instanceof UsageError ? 2 : 1)
})
