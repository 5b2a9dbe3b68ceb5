/** What the figures were measured on: CPU, cores, the versions of everything in the path, the commit. */
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { availableParallelism } from 'node:os'
import { join } from 'node:path'
import { ROOT } from './env.mjs'

const version = (pkg) => JSON.parse(readFileSync(join(ROOT, 'node_modules', pkg, 'package.json'), 'utf8')).version
/** The workerd the bench runs: miniflare's own (the Workers test pool pins another one beside it). */
const workerdVersion = () =>
  JSON.parse(
    readFileSync(createRequire(join(ROOT, 'node_modules/miniflare/package.json')).resolve('workerd/package.json'), 'utf8'),
  ).version

const git = (...args) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim()

export function machineInfo() {
  const cpuinfo = readFileSync('/proc/cpuinfo', 'utf8')
  return {
    cpu: /^model name\s*:\s*(.+)$/m.exec(cpuinfo)?.[1] ?? 'unknown',
    cores: availableParallelism(),
    node: process.version,
    workerd: workerdVersion(),
    miniflare: version('miniflare'),
    wrangler: version('wrangler'),
    hono: version('hono'),
    zod: version('zod'),
    sdk: version('@modelcontextprotocol/server'),
    autocannon: version('autocannon'),
    date: new Date().toISOString(),
    commit: git('rev-parse', '--short', 'HEAD'),
    srcModified: git('status', '--porcelain', '--', 'packages/mcp-edge/src', 'apps/demo/src', 'templates').length > 0,
  }
}
