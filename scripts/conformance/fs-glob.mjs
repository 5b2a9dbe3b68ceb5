// Node 20 lacks fs.globSync (added in Node 22), which @modelcontextprotocol/conformance imports at
// start-up. This module re-exports node:fs and adds a small globSync for the patterns it uses.
import fs from 'node:fs'
import path from 'node:path'

export * from 'node:fs'
export default fs

function toRegExp(pattern) {
  let re = ''
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i]
    if (ch === '*' && pattern[i + 1] === '*') {
      re += '.*'
      i++
      if (pattern[i + 1] === '/') i++
    } else if (ch === '*') re += '[^/]*'
    else if (ch === '?') re += '[^/]'
    else re += ch.replace(/[.+^${}()|[\]\\]/g, '\\$&')
  }
  return new RegExp(`^${re}$`)
}

function walk(dir, base, out) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const rel = base ? `${base}/${entry.name}` : entry.name
    out.push(rel)
    if (entry.isDirectory()) walk(path.join(dir, entry.name), rel, out)
  }
  return out
}

export function globSync(patterns, options = {}) {
  const cwd = options.cwd ? String(options.cwd) : process.cwd()
  const list = Array.isArray(patterns) ? patterns : [patterns]
  const all = fs.existsSync(cwd) ? walk(cwd, '', []) : []
  const matches = new Set()
  for (const pattern of list) {
    const re = toRegExp(pattern)
    for (const rel of all) if (re.test(rel)) matches.add(rel)
  }
  return [...matches]
}
