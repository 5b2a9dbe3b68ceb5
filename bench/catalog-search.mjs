#!/usr/bin/env node
/**
 * `npm run bench:catalog [-- --quick]`: what a large catalog costs per request, over HTTP, CPU per
 * request of workerd (issue 41, docs/catalogs.md). One Worker (workers/catalog-search/worker.js:
 * the many-tools bench's catalog, schemas built on first use) in four instances, each its own
 * workerd, in alternating rounds of the floor step's load (bench/README.md, "A/B"):
 *
 * - `plain-5`: 5 tools, no search (the reference: a small server);
 * - `plain-1000`: 1,000 tools, no search: `tools/list` is its first page (50 tools);
 * - `search-5` and `search-1000`: the same behind `toolSearch`: `tools/list` carries five tools
 *   and `search_tools`.
 *
 * Lanes: `tools/list` on each; `search_tools` for one tool on `search-5` and `search-1000` (ten
 * results); and the found tool called by name on `search-1000` beside `plain-5` (a call must not
 * cost more in a large catalog). Every answer under load is checked byte for byte.
 */
import { build } from './lib/build.mjs'
import { alternateLoad, describeRatio, medians } from './lib/compare.mjs'
import { config } from './lib/config.mjs'
import { CATALOG_ARGUMENTS, CATALOG_CALL, CATALOG_TOOL, mcpRequest, send, verifyCall } from './lib/mcp.mjs'
import { reportWorkerdWarnings, startWorker } from './lib/workerd.mjs'

const log = (line) => console.error(`[bench:catalog] ${line}`)
const INSTANCES = {
  'plain-5': { TOOL_COUNT: '5' },
  'plain-1000': { TOOL_COUNT: '1000' },
  'search-5': { TOOL_COUNT: '5', TOOL_SEARCH: '1' },
  'search-1000': { TOOL_COUNT: '1000', TOOL_SEARCH: '1' },
}
/** Finds `inventory_update_555` first in the 1,000-tool catalog (and nothing better in the 5-tool one). */
const QUERY = 'inventory update 555'
const SEARCH = mcpRequest('tools/call', { name: 'search_tools', arguments: { query: QUERY } }, { name: 'search_tools' })
const LIST = mcpRequest('tools/list', {})
const FOUND = 'inventory_update_555'
const FOUND_CALL = mcpRequest('tools/call', { name: FOUND, arguments: CATALOG_ARGUMENTS }, { name: FOUND })

/** The verified answer of `request` (what every answer under load must equal), after `check`. */
async function answerOf(target, request, check) {
  const { status, text, json } = await send(target.endpoint, request)
  const problem = status === 200 ? check(json?.result) : `HTTP ${status}`
  if (problem) throw new Error(`${target.id}: ${problem}: ${text.slice(0, 300)}`)
  return text
}

const targets = {}
const stopAll = () => Promise.allSettled(Object.values(targets).map((target) => target.dispose()))
process.on('SIGINT', () => void stopAll().finally(() => process.exit(130)))

try {
  const built = build('catalog-search')
  log(`built: ${built.gzipBytes} bytes gzip`)
  for (const [id, bindings] of Object.entries(INSTANCES)) {
    // The many-tools variant's config and start-up, with this Worker's script and bindings.
    targets[id] = { id, ...(await startWorker('tools-5', built.scriptPath, { bindings })) }
  }
  const lanes = []
  const sizes = {}
  for (const id of Object.keys(INSTANCES)) {
    const expectBody = await answerOf(targets[id], LIST, (result) => (Array.isArray(result?.tools) ? '' : 'no tools'))
    sizes[id] = { tools: JSON.parse(expectBody).result.tools.length, bytes: Buffer.byteLength(expectBody) }
    lanes.push({ id: `list:${id}`, target: targets[id], request: LIST, expectBody })
  }
  for (const id of ['search-5', 'search-1000']) {
    const expectBody = await answerOf(targets[id], SEARCH, (result) =>
      Array.isArray(result?.structuredContent?.tools) ? '' : 'no structuredContent.tools',
    )
    const found = JSON.parse(expectBody).result.structuredContent
    sizes[`search:${id}`] = {
      tools: found.tools.length,
      total: found.total,
      first: found.tools[0]?.name,
      bytes: Buffer.byteLength(expectBody),
    }
    lanes.push({ id: `search:${id}`, target: targets[id], request: SEARCH, expectBody })
  }
  if (sizes['search:search-1000'].first !== FOUND)
    throw new Error(`search found ${sizes['search:search-1000'].first} first, not ${FOUND}`)
  const answer = (name) => `${name}: 5 open results for "acme" (vip, renewal; owner u-17)`
  lanes.push({
    id: 'call:plain-5',
    target: targets['plain-5'],
    request: CATALOG_CALL,
    expectBody: await verifyCall(targets['plain-5'].endpoint, CATALOG_CALL, answer(CATALOG_TOOL)),
  })
  lanes.push({
    id: 'call:search-1000',
    target: targets['search-1000'],
    request: FOUND_CALL,
    expectBody: await verifyCall(targets['search-1000'].endpoint, FOUND_CALL, answer(FOUND)),
  })

  log(`${lanes.length} lanes, ${config.rounds} rounds × ${config.requests} requests after ${config.warmupRequests} each`)
  const rounds = await alternateLoad(lanes, config, log)
  const cpu = medians(rounds, 'cpuUsPerRequest')
  const rps = medians(rounds, 'rps')
  console.log('\n| lane | CPU µs/request | req/s | answer |\n| --- | --- | --- | --- |')
  for (const { id } of lanes) {
    const size = sizes[id.replace(/^list:/, '')] ?? sizes[id]
    const what = size
      ? `${size.tools} tools${size.total === undefined ? '' : ` of ${size.total}`}, ${size.bytes} bytes`
      : 'one call'
    console.log(`| ${id} | ${cpu[id].toFixed(1)} | ${rps[id].toFixed(0)} | ${what} |`)
  }
  const ratio = (a, b) => describeRatio(rounds, 'cpuUsPerRequest', a, b)
  console.log(`\nsearch_tools, 1,000 tools / 5 tools: ${ratio('search:search-1000', 'search:search-5')}`)
  console.log(`tools/list, 1,000 tools behind search / 5 tools: ${ratio('list:search-1000', 'list:plain-5')}`)
  console.log(`tools/list, 1,000 tools (first page of 50) / 5 tools: ${ratio('list:plain-1000', 'list:plain-5')}`)
  console.log(`tools/call, 1,000 tools behind search / 5 tools: ${ratio('call:search-1000', 'call:plain-5')}`)
} finally {
  await stopAll()
  reportWorkerdWarnings(log)
}
