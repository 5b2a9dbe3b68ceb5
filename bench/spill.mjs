#!/usr/bin/env node
/**
 * `node bench/spill.mjs`: the cost of a 2 MiB tool result (docs/results.md "Measured"). The demo's
 * `large_report` with `kib: 2048` under `wrangler dev` twice: with `McpResultStore` bound (the
 * result is stored and answered with a 64 KiB preview and a link), and as the bench Worker
 * (bench/workers/edge: the same server without the binding, so the result is sent whole). For
 * each: workerd CPU per call (the Worker and, when spilled, the result's Durable Object: one
 * process locally), bytes the store wrote per result (its SQLite files), CPU to read the result
 * back through its link, and the peak RSS of workerd and the peak heap of the Worker's isolate
 * (wrangler's inspector; locally the store's objects share it) while 16 clients have called and
 * read none of their responses (stalled readers). Figures, not assertions; Linux only (/proc).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { request as httpRequest } from 'node:http'
import { join } from 'node:path'
import { startWrangler } from '../test/support/wrangler.ts'
import { connectCdp } from './lib/cdp.mjs'
import { cpuMs, rssBytes, workerdChildren } from './lib/proc.mjs'

const KIB = 2048
const CALLS = Number(process.env.SPILL_CALLS ?? 20)
const STALLED = Number(process.env.SPILL_STALLED ?? 16)
const STATE_KEYS = 'test:bWNwLWVkZ2UgZml4dHVyZSBrZXksIG5vdCBhIHNlY3JldCEhISE='

const body = (method, params, id = 1) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id,
    method,
    params: {
      ...params,
      _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} },
    },
  })
const headers = (method, name) => ({
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2026-07-28',
  'mcp-method': method,
  'mcp-name': name,
})

async function rpc(url, method, params, name) {
  const response = await fetch(url, { method: 'POST', headers: headers(method, name), body: body(method, params) })
  const text = await response.text()
  return { bytes: text.length, message: JSON.parse(text) }
}

const call = (url) => rpc(url, 'tools/call', { name: 'large_report', arguments: { kib: KIB } }, 'large_report')

/** Read a link to its end; the pages' total length. */
async function readLink(url, uri) {
  let chars = 0
  for (let next = uri; next; ) {
    const page = (await rpc(url, 'resources/read', { uri: next }, next)).message.result.contents[0]
    chars += page.text.length
    next = page._meta?.['mcp-edge/nextUri']
  }
  return chars
}

/** The workerd processes anywhere under wrangler's process (it starts them through its own children). */
function workerd(server) {
  const parents = new Map()
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]))
    } catch {
      // The process ended while we looked.
    }
  }
  const under = (pid) => pid === server.pid || (pid > 1 && parents.has(pid) && under(parents.get(pid)))
  const pids = [...new Set([...parents.keys()].filter((pid) => under(pid)).flatMap((pid) => workerdChildren(pid)))]
  if (pids.length === 0) throw new Error('no workerd process under wrangler')
  return pids
}
const cpu = (pids) => pids.reduce((sum, pid) => sum + cpuMs(pid), 0)
const rss = (pids) => pids.reduce((sum, pid) => sum + rssBytes(pid), 0)

/** Bytes of the result store's SQLite files under the persisted state. */
function storedBytes(dir) {
  let total = 0
  for (const name of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    if (!name.includes('McpResultStore')) continue
    const stat = statSync(join(dir, name))
    if (stat.isFile()) total += stat.size
  }
  return total
}

/** The Worker's isolate heap in use (V8's used size plus array-buffer backing stores), through wrangler's inspector. */
async function heapUsed(cdp) {
  const usage = await cdp.send('Runtime.getHeapUsage')
  return usage.usedSize + (usage.backingStorageSize ?? 0)
}

/** `count` calls whose responses nobody reads; the peak RSS and isolate heap while they are held. */
async function stalledPeak(url, pids, count, cdp) {
  await cdp.send('HeapProfiler.collectGarbage').catch(() => {})
  const before = rss(pids)
  const heapBefore = await heapUsed(cdp)
  let peak = before
  let heapPeak = heapBefore
  const requests = []
  for (let i = 0; i < count; i++) {
    const payload = body('tools/call', { name: 'large_report', arguments: { kib: KIB } }, i + 1)
    const req = httpRequest(url, { method: 'POST', headers: headers('tools/call', 'large_report'), agent: false })
    req.on('response', (res) => res.pause())
    req.on('error', () => {})
    req.end(payload)
    requests.push(req)
  }
  const until = Date.now() + 3000
  while (Date.now() < until) {
    peak = Math.max(peak, rss(pids))
    heapPeak = Math.max(heapPeak, await heapUsed(cdp))
    await new Promise((done) => setTimeout(done, 25))
  }
  for (const req of requests) req.destroy()
  return { before, peak, heapBefore, heapPeak }
}

async function measure(label, options) {
  const server = await startWrangler(options)
  try {
    const pids = workerd(server)
    const first = await call(server.url)
    const link = first.message.result.content.find((block) => block.type === 'resource_link')
    for (let i = 0; i < 2; i++) await call(server.url)
    const storedBefore = storedBytes(server.persistTo)
    const start = cpu(pids)
    let responseBytes = 0
    for (let i = 0; i < CALLS; i++) responseBytes += (await call(server.url)).bytes
    const perCall = (cpu(pids) - start) / CALLS
    const written = (storedBytes(server.persistTo) - storedBefore) / CALLS
    let readCpu
    if (link) {
      const before = cpu(pids)
      for (let i = 0; i < 5; i++) if ((await readLink(server.url, link.uri)) !== KIB * 1024) throw new Error('short read')
      readCpu = (cpu(pids) - before) / 5
    }
    const targets = await (await fetch(`http://127.0.0.1:${server.inspectorPort}/json`)).json()
    const cdp = await connectCdp(targets[0].webSocketDebuggerUrl)
    const stalled = await stalledPeak(server.url, pids, STALLED, cdp).finally(() => cdp.close())
    return { label, perCall, responseBytes: responseBytes / CALLS, written, readCpu, ...stalled }
  } finally {
    await server.stop()
  }
}

const MIB = 1024 * 1024
const mib = (bytes) => (bytes / MIB).toFixed(1)
const rows = [
  await measure('spilled (McpResultStore bound)', { config: 'apps/demo/wrangler.jsonc' }),
  await measure('whole (no store: bench/workers/edge)', {
    config: 'bench/workers/edge/wrangler.jsonc',
    vars: { MCP_STATE_KEYS: STATE_KEYS },
  }),
]
console.log(`large_report kib=${KIB}: ${CALLS} calls each, ${STALLED} stalled readers, workerd under wrangler dev`)
console.log(
  '| | workerd CPU per call | response bytes | store bytes written per result | CPU to read the link (all pages) | workerd RSS with stalled readers | isolate heap with stalled readers |',
)
console.log('| --- | --- | --- | --- | --- | --- | --- |')
for (const row of rows) {
  const read = row.readCpu === undefined ? 'n/a' : `${row.readCpu.toFixed(1)} ms`
  console.log(
    `| ${row.label} | ${row.perCall.toFixed(1)} ms | ${Math.round(row.responseBytes)} | ${Math.round(row.written)} | ${read} | ${mib(row.before)} → ${mib(row.peak)} MiB | ${mib(row.heapBefore)} → ${mib(row.heapPeak)} MiB |`,
  )
}
