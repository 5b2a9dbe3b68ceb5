/**
 * Servers with many tools: mcp-edge with 5, 50 and 200 tools of the catalog
 * (bench/workers/catalog.ts: nested objects, enums, descriptions) beside the SDK v2 Worker with 5
 * and 200 of the same tools.
 *
 * - Load: `tools/call` of tool 0 (nested arguments, parsed and checked by each server) on every
 *   server, and `tools/list` (every page, each its own lane), alternated per round; CPU per
 *   request, and per full listing (`listAll:<variant>`, its pages added up: the same tools on
 *   every server, however it pages them).
 * - Pages: every page of `tools/list` read once: tools and bytes per page, and that the pages hold
 *   each tool exactly once.
 */
import { alternateLoad } from './compare.mjs'
import { mcpRequest, send, verifyCall } from './mcp.mjs'
import { SDK_TOOL_COUNTS, TOOL_COUNTS, toolCount, VARIANTS } from './variants.mjs'

export const TOOL_VARIANTS = [...TOOL_COUNTS.map((n) => `tools-${n}`), ...SDK_TOOL_COUNTS.map((n) => `sdk-tools-${n}`)]

const listRequest = (cursor) => mcpRequest('tools/list', cursor === undefined ? {} : { cursor })

/** Every page of tools/list; throws unless the pages hold `count` distinct tools. */
export async function listPages(target, count) {
  const pages = []
  const names = new Set()
  let cursor
  do {
    const { status, text, json } = await send(target.endpoint, listRequest(cursor))
    const tools = json?.result?.tools
    if (status !== 200 || !Array.isArray(tools))
      throw new Error(`${target.variant}: tools/list answered ${status} ${text.slice(0, 200)}`)
    for (const tool of tools) names.add(tool.name)
    pages.push({ tools: tools.length, bytes: Buffer.byteLength(text) })
    cursor = json.result.nextCursor
  } while (cursor !== undefined && pages.length <= count)
  if (names.size !== count || pages.reduce((sum, page) => sum + page.tools, 0) !== count) {
    throw new Error(`${target.variant}: tools/list pages hold ${names.size} distinct tools, expected ${count}`)
  }
  return pages
}

/** `targets`: every TOOL_VARIANTS Worker, running. SDK lanes are slower, so they get fewer requests per round. */
export async function manyToolsLoad(targets, config, log) {
  const lanes = []
  for (const variant of TOOL_VARIANTS) {
    const target = targets[variant]
    const { call } = VARIANTS[variant]
    const sdk = variant.startsWith('sdk')
    const scale = sdk ? (variant.endsWith('-5') ? 0.5 : 0.1) : 1
    lanes.push({
      id: `call:${variant}`,
      target,
      request: call.request,
      expectBody: await verifyCall(target.endpoint, call.request, call.answer),
      requests: Math.max(20, Math.round(config.requests * scale)),
    })
    const list = await send(target.endpoint, listRequest())
    if (list.status !== 200 || !Array.isArray(list.json?.result?.tools)) throw new Error(`${variant}: tools/list failed`)
    lanes.push({
      id: `list:${variant}`,
      target,
      request: listRequest(),
      expectBody: list.text,
      requests: Math.max(20, Math.round(config.listRequests * scale)),
    })
    // The later pages too, so that a full listing (every tool, once) compares with a server that
    // lists them all on one page: the same tools, not mcp-edge's first page against all of the SDK's.
    for (let cursor = list.json.result.nextCursor, page = 2; cursor !== undefined; page++) {
      const request = listRequest(cursor)
      const next = await send(target.endpoint, request)
      if (next.status !== 200 || !Array.isArray(next.json?.result?.tools))
        throw new Error(`${variant}: tools/list page ${page} failed`)
      lanes.push({ id: `list:${variant}:${page}`, target, request, expectBody: next.text, requests: lanes.at(-1).requests })
      cursor = next.json.result.nextCursor
    }
  }
  const rounds = await alternateLoad(lanes, { ...config, rounds: config.toolRounds }, log)
  for (const round of rounds) {
    for (const variant of TOOL_VARIANTS) round[`listAll:${variant}`] = { cpuUsPerRequest: fullListing(round, variant) }
  }
  const pages = {}
  for (const variant of TOOL_VARIANTS) pages[variant] = await listPages(targets[variant], toolCount(variant))
  return { rounds, pages }
}

/** CPU of listing every tool of `variant` in one round: its pages' CPU per request, added up. */
function fullListing(round, variant) {
  let sum = 0
  for (const [id, lane] of Object.entries(round)) {
    if (id === `list:${variant}` || id.startsWith(`list:${variant}:`)) sum += lane.cpuUsPerRequest
  }
  return sum
}
