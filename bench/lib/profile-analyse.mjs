/**
 * Reading a V8 CPU profile from workerd's inspector: samples mapped to source lines through the
 * bundle's source map; per mcp-edge function, self time, and self time plus the
 * non-src code it calls (Hono, zod, Web APIs, natives), i.e. every sample charged to its nearest
 * mcp-edge frame; and the time by area (mcp-edge, each other package, workerd's own work).
 */
import { readFileSync } from 'node:fs'
import { SourceMap } from 'node:module'
import { basename, dirname, relative, resolve } from 'node:path'
import { ROOT } from './paths.mjs'

/** The library as the Workers bundle it: the built package (node_modules/mcp-edge is a link to it). */
export const LIBRARY = 'packages/mcp-edge/'

const TOP = 15
const TOP_LEVEL = "(the module's top-level code)"
/**
 * Ticks that tell nothing of where a start was: idle, and the collector, which V8 shows under the
 * root wherever the JavaScript it interrupted was. `(program)` does tell: V8's work outside any
 * JavaScript, such as compiling the script before its evaluation.
 */
const NOT_CODE = ['(idle)', '(root)', '(garbage collector)']
const ROOT_FRAME = { functionName: '(root)', scriptId: '0', url: '', lineNumber: -1, columnNumber: -1 }

/** A profile's nodes by id, and each node's parent id. */
function treeOf(profile) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]))
  const parents = new Map()
  for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id)
  return { byId, parents }
}

/** Where a profile frame's code lives: repo-relative source file and line, or a runtime bucket. */
function locator(scriptPath) {
  const map = new SourceMap(JSON.parse(readFileSync(`${scriptPath}.map`, 'utf8')))
  const script = basename(scriptPath)
  return ({ functionName, url, lineNumber, columnNumber }) => {
    // workerd names the script by its file name.
    if (url === script) {
      // The module's own top-level code (a start-up profile: evaluating the module) has no line.
      if (lineNumber < 0) return { file: TOP_LEVEL, line: 0 }
      const entry = map.findEntry(lineNumber, columnNumber)
      if (!entry.originalSource) return { file: '(bundler helpers, e.g. __name)', line: 0 }
      return { file: relative(ROOT, resolve(dirname(scriptPath), entry.originalSource)), line: entry.originalLine + 1 }
    }
    if (functionName.startsWith('(')) return { file: functionName, line: 0 }
    return { file: url === '' ? '(native)' : url, line: 0 }
  }
}

function areaOf(file) {
  if (file.startsWith(LIBRARY)) return 'mcp-edge'
  const pkg = /^node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(file)
  return pkg ? pkg[1] : file
}

/**
 * Several profiles of the same script as one, under one root (as a profile viewer expects): nodes
 * renumbered, samples and their time deltas one after another. Each profile's first delta (from
 * its start to its first sample) is dropped, since `analyse` charges a delta to the sample before
 * it, which would be another profile's.
 */
export function mergeProfiles(profiles) {
  const root = { id: 1, callFrame: ROOT_FRAME, hitCount: 0, children: [] }
  const merged = { nodes: [root], samples: [], timeDeltas: [], startTime: 0, endTime: 0 }
  let offset = 1
  for (const profile of profiles) {
    const shift = (id) => id + offset
    for (const node of profile.nodes) merged.nodes.push({ ...node, id: shift(node.id), children: node.children?.map(shift) })
    root.children.push(shift(profile.nodes[0].id))
    merged.samples.push(...profile.samples.map(shift))
    merged.timeDeltas.push(...profile.timeDeltas.map((delta, i) => (i === 0 ? 0 : delta)))
    merged.endTime += profile.endTime - profile.startTime
    offset += Math.max(...profile.nodes.map((node) => node.id))
  }
  return merged
}

/**
 * Whether the sampler saw a start from its beginning: its first telling sample is outside the
 * Worker's script (V8's own work, or the entry module that imports the script), not already
 * inside the script's evaluation, which happens when the sampler starts late; and some later sample
 * is under the script's top-level frame, since a sampler that starts later still, once the import
 * is over, also sees only code outside the script first.
 */
export function sampledFromTheStart(profile, scriptPath) {
  const script = basename(scriptPath)
  const { byId, parents } = treeOf(profile)
  const frames = function* (id) {
    for (let at = id; at !== undefined; at = parents.get(at)) yield byId.get(at).callFrame
  }
  const inScript = (id) => frames(id).some((frame) => frame.url === script)
  const inImport = (id) => frames(id).some((frame) => frame.url === script && frame.lineNumber < 0)
  const first = profile.samples.find((id) => !NOT_CODE.includes(byId.get(id).callFrame.functionName))
  return first !== undefined && !inScript(first) && profile.samples.some(inImport)
}

/**
 * Self time per function and area, time charged to the nearest src/ frame, and the time under the
 * module's evaluation (its top-level code and all it called: a start-up profile's import), in ms.
 */
export function analyse(profile, scriptPath) {
  const locate = locator(scriptPath)
  const { byId, parents } = treeOf(profile)
  const nodes = new Map()
  for (const node of profile.nodes) {
    const { file, line } = locate(node.callFrame)
    const name = node.callFrame.functionName || '(anonymous)'
    const atRoot = byId.get(parents.get(node.id))?.callFrame.functionName === '(root)'
    let key = file === TOP_LEVEL ? file : file.startsWith('(') ? name : `${name} ${file}:${line}`
    // Native code straight under the root: workerd's own work on the isolate's thread.
    if (file === '(native)' && name === '(anonymous)' && atRoot) key = '(workerd, outside any JS function)'
    nodes.set(node.id, { key, file, parent: parents.get(node.id) })
  }
  // Whether a node runs under the module's evaluation (its top-level frame or anything it called).
  const inModule = new Map()
  const underTopLevel = (id) => {
    if (id === undefined) return false
    if (!inModule.has(id)) inModule.set(id, nodes.get(id).file === TOP_LEVEL || underTopLevel(nodes.get(id).parent))
    return inModule.get(id)
  }
  const nearestSrc = (id) => {
    for (let node = nodes.get(id); node; node = nodes.get(node.parent)) if (node.file.startsWith(LIBRARY)) return node.key
    return undefined
  }
  const self = new Map()
  const charged = new Map()
  const areas = new Map()
  const add = (map, key, ms) => map.set(key, (map.get(key) ?? 0) + ms)
  let totalMs = 0
  let moduleMs = 0
  for (let i = 0; i < profile.samples.length; i++) {
    const node = nodes.get(profile.samples[i])
    if (node.file === '(idle)') continue
    const ms = (profile.timeDeltas[i + 1] ?? 0) / 1000
    totalMs += ms
    if (underTopLevel(profile.samples[i])) moduleMs += ms
    add(self, node.key, ms)
    add(areas, areaOf(node.file), ms)
    const owner = nearestSrc(profile.samples[i])
    if (owner) add(charged, owner, ms)
  }
  const ranked = (map, filter = () => true) =>
    [...map]
      .filter(([key]) => filter(key))
      .sort((a, b) => b[1] - a[1])
      .slice(0, TOP)
      .map(([key, ms]) => ({ function: key, ms, share: ms / totalMs }))
  return {
    totalMs,
    moduleMs,
    areas: ranked(areas),
    srcSelf: ranked(self, (key) => key.includes(` ${LIBRARY}`)),
    srcCharged: ranked(charged),
    all: ranked(self),
  }
}

/**
 * Time under each function (inclusive: the samples with it anywhere on their stack, once each) and
 * its self time, in ms, every function named as `analyse` names it, most time first (profile-sdk.mjs).
 */
export function inclusive(profile, scriptPath) {
  const locate = locator(scriptPath)
  const { byId, parents } = treeOf(profile)
  const keyOf = new Map()
  for (const node of profile.nodes) {
    const { file, line } = locate(node.callFrame)
    const name = node.callFrame.functionName || '(anonymous)'
    keyOf.set(node.id, file.startsWith('(') ? name : `${name} ${file}:${line}`)
  }
  const under = new Map()
  const self = new Map()
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i]
    if (byId.get(id).callFrame.functionName === '(idle)') continue
    const ms = (profile.timeDeltas[i + 1] ?? 0) / 1000
    self.set(keyOf.get(id), (self.get(keyOf.get(id)) ?? 0) + ms)
    const seen = new Set()
    for (let at = id; at !== undefined; at = parents.get(at)) seen.add(keyOf.get(at))
    for (const key of seen) under.set(key, (under.get(key) ?? 0) + ms)
  }
  return [...under].map(([key, ms]) => ({ key, ms, selfMs: self.get(key) ?? 0 })).sort((a, b) => b.ms - a.ms)
}
