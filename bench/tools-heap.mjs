/**
 * The tools heap alone (issue 38): the isolate heap of the bare Hono Worker (the floor), and of
 * mcp-edge with 5 and 200 catalog tools after start-up and after a client listed every page,
 * through the inspector as the full bench's heap step takes it (bench/lib/heap.mjs), with the
 * target beside the figure. `--snapshot` also prints what the 200 tools add over the 5 after
 * listing: V8's self size grouped by node type and constructor, largest first.
 *
 *   node bench/tools-heap.mjs [--snapshot]
 */
import { build } from './lib/build.mjs'
import { startInspected } from './lib/heap.mjs'
import { listPages } from './lib/many-tools.mjs'
import { verifyCall } from './lib/mcp.mjs'
import { TOOLS_HEAP_BUDGET_BYTES } from './lib/targets.mjs'
import { toolCount, VARIANTS } from './lib/variants.mjs'

const snapshot = process.argv.includes('--snapshot')
const KIB = 1024
const scripts = { tools: build('tools').scriptPath, hono: build('hono').scriptPath }

/** Self size (bytes, count) per node type and constructor, from a snapshot's JSON. */
function groupSnapshot(text) {
  const { snapshot: head, nodes, strings } = JSON.parse(text)
  const fields = head.meta.node_fields
  const types = head.meta.node_types[0]
  const [type, name, self] = ['type', 'name', 'self_size'].map((field) => fields.indexOf(field))
  const groups = new Map()
  for (let i = 0; i < nodes.length; i += fields.length) {
    const kind = types[nodes[i + type]]
    const key = ['object', 'closure', 'native'].includes(kind) ? `${kind} ${strings[nodes[i + name]].slice(0, 40)}` : kind
    const group = groups.get(key) ?? { bytes: 0, count: 0 }
    group.bytes += nodes[i + self]
    group.count++
    groups.set(key, group)
  }
  return groups
}

async function measure(variant) {
  const inspected = await startInspected(variant, scripts[VARIANTS[variant].worker])
  try {
    const { call } = VARIANTS[variant]
    await verifyCall(inspected.target.endpoint, call.request, call.answer)
    const startup = await inspected.heapBytes()
    if (!toolCount(variant)) return { startup }
    await listPages(inspected.target, toolCount(variant))
    const listed = await inspected.heapBytes()
    if (!snapshot) return { startup, listed }
    const chunks = []
    inspected.cdp.on('HeapProfiler.addHeapSnapshotChunk', ({ chunk }) => void chunks.push(chunk))
    await inspected.cdp.send('HeapProfiler.takeHeapSnapshot', { reportProgress: false })
    return { startup, listed, groups: groupSnapshot(chunks.join('')) }
  } finally {
    await inspected.dispose()
  }
}

const kib = (bytes) => `${(bytes / KIB).toFixed(0)} KiB`
const floor = await measure('hono')
const few = await measure('tools-5')
const many = await measure('tools-200')
console.log(`bare Hono floor: ${kib(floor.startup)}`)
for (const [variant, heap] of [
  ['tools-5', few],
  ['tools-200', many],
]) {
  console.log(`${variant}: after start-up ${kib(heap.startup)}, after listing every page ${kib(heap.listed)}`)
}
const over = many.listed - floor.startup
const verdict = over <= TOOLS_HEAP_BUDGET_BYTES ? 'met' : 'missed'
console.log(
  `200 tools listed, above the floor: ${(over / 1e6).toFixed(2)} MB (target ≤ ${TOOLS_HEAP_BUDGET_BYTES / 1e6} MB): ${verdict}`,
)
if (snapshot) {
  const keys = new Set([...few.groups.keys(), ...many.groups.keys()])
  const zero = { bytes: 0, count: 0 }
  const rows = [...keys].map((key) => {
    const [a, b] = [few.groups.get(key) ?? zero, many.groups.get(key) ?? zero]
    return { key, bytes: b.bytes - a.bytes, count: b.count - a.count }
  })
  rows.sort((a, b) => b.bytes - a.bytes)
  console.log(
    `200 tools over 5, after listing (self size by type and constructor; ${kib(rows.reduce((s, r) => s + r.bytes, 0))} in all):`,
  )
  for (const row of rows.slice(0, 20)) console.log(`${kib(row.bytes).padStart(10)} ${String(row.count).padStart(7)}  ${row.key}`)
}
process.exit(0)
