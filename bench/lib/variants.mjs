/**
 * The Workers the bench starts, by the name the report uses: which built Worker
 * (bench/workers/<worker>/wrangler.jsonc), the bindings of that instance, and the call its start-up and
 * load runs check (`add(2, 3)` → "5", or tool 0 of the many-tools catalog).
 */
import { BENCH_BEARER_TOKEN, TEST_STATE_KEYS } from './keys.mjs'
import { ADD_CALL, CATALOG_ANSWER, CATALOG_CALL, legacyAddCall } from './mcp.mjs'

const add = { request: ADD_CALL, answer: '5' }
const legacyAdd = { request: legacyAddCall(null), answer: '5' }
const catalogCall = { request: CATALOG_CALL, answer: CATALOG_ANSWER }
const STATE = { MCP_STATE_KEYS: TEST_STATE_KEYS }
const withToken = { ...ADD_CALL, headers: { ...ADD_CALL.headers, authorization: `Bearer ${BENCH_BEARER_TOKEN}` } }

export const TOOL_COUNTS = [5, 50, 200]
export const SDK_TOOL_COUNTS = [5, 200]

export const VARIANTS = {
  hono: { worker: 'hono', label: 'Hono floor', call: add, eras: ['modern'] },
  // The floor plus one hand-written `console.log(JSON.stringify({…}))` per request, with the
  // fields of mcp-edge's request line: what the templates' telemetry is judged against.
  'hono-log': { worker: 'hono-log', label: 'Hono floor + a log line', call: add, eras: ['modern'] },
  'hono-do': { worker: 'hono-do', label: 'Hono floor + 5 Durable Object bindings', call: add },
  edge: { worker: 'edge', label: 'mcp-edge', bindings: STATE, call: add },
  // The same demo with telemetry off (no log line, no spans), as the floor and the SDK Worker have
  // none: built from a copy (build.mjs telemetryOffConfig) with workers/edge's config and bindings.
  'edge-off': { worker: 'edge-off', config: 'edge', label: 'mcp-edge, telemetry off', bindings: STATE, call: add },
  // The demo (the templates' code and telemetry, every feature) as deployed: with MCP_BEARER_TOKEN set it authenticates every call and has no
  // local-only mode, so its first call logs no warning (`edge` is `npm run dev`'s configuration).
  'edge-token': {
    worker: 'edge',
    label: 'mcp-edge, MCP_BEARER_TOKEN set',
    bindings: { ...STATE, MCP_BEARER_TOKEN: BENCH_BEARER_TOKEN },
    call: { request: withToken, answer: '5' },
    eras: ['modern'],
  },
  // The floor behind the same token check as edge-token (the presented token's SHA-256 against the
  // secret's): what the demo as deployed is judged against.
  'hono-token': {
    worker: 'hono-token',
    label: 'Hono floor + the same bearer-token check',
    bindings: { MCP_BEARER_TOKEN: BENCH_BEARER_TOKEN },
    call: { request: withToken, answer: '5' },
    eras: ['modern'],
  },
  sdk: { worker: 'sdk', label: 'SDK v2', call: add },
  // The minimal template as scaffolded and deployed (its own wrangler.jsonc, minified; built by
  // more-bundles.mjs), with MCP_BEARER_TOKEN set and sent: issue 38's start-up target.
  minimal: {
    worker: 'template-minimal',
    config: '../../templates/minimal',
    label: 'minimal template, MCP_BEARER_TOKEN set',
    bindings: { MCP_BEARER_TOKEN: BENCH_BEARER_TOKEN },
    call: { request: withToken, answer: '5' },
  },
  // Peers (issue 38): the same `add` tool on the other ways users build an MCP server on Workers.
  // `eras`: the revisions each serves (`legacy`: 2025-era clients only, after `initialize`).
  'mcp-handler': { worker: 'mcp-handler', label: 'mcp-handler (Vercel, SDK v2)', call: add },
  agents: { worker: 'agents', label: 'agents/mcp/server createMcpHandler (SDK v2)', call: add },
  // tmcp answers a 2025-11-25 `initialize` with 2025-06-18 (the bench's 2025 client asks 2025-11-25).
  tmcp: { worker: 'tmcp', label: 'tmcp + @tmcp/transport-http', call: add, eras: ['modern'] },
  // The SDK v1 serves the 2025 revisions only; statelessly, a call needs no `initialize` first.
  'hono-mcp': { worker: 'hono-mcp', label: '@hono/mcp (SDK v1)', call: legacyAdd, eras: ['legacy'] },
  // mcp-edge through its SDK adapter: SDK code on `mcp-edge/sdk`, with `edge`'s telemetry and services.
  'edge-sdk': { worker: 'edge-sdk', label: 'mcp-edge through mcp-edge/sdk', bindings: STATE, call: add },
  // bench/telemetry.mjs: one Worker, its telemetry by binding (workers/telemetry/worker.js).
  ...Object.fromEntries(
    ['off', 'logs', 'native', 'otlp', 'traced', 'mirrored'].map((mode) => [
      `telemetry-${mode}`,
      { worker: 'telemetry', label: `telemetry ${mode}`, bindings: { TELEMETRY: mode }, call: add },
    ]),
  ),
  ...Object.fromEntries(
    TOOL_COUNTS.map((count) => [
      `tools-${count}`,
      { worker: 'tools', label: `mcp-edge, ${count} tools`, bindings: { TOOL_COUNT: String(count) }, call: catalogCall },
    ]),
  ),
  'tools-200-eager': {
    worker: 'tools',
    label: 'mcp-edge, 200 tools, schemas built at start-up',
    bindings: { TOOL_COUNT: '200', TOOL_EAGER: '1' },
    call: catalogCall,
  },
  // Issue 38: 500 tools given as zod objects (start-up only).
  'tools-500-eager': {
    worker: 'tools',
    label: 'mcp-edge, 500 tools, schemas built at start-up',
    bindings: { TOOL_COUNT: '500', TOOL_EAGER: '1' },
    call: catalogCall,
  },
  // The floor that builds the same 200 or 500 zod schemas at start-up and nothing else: the
  // schemas' own share of tools-200-eager's and tools-500-eager's start-up (the user's code, not the runtime's).
  ...Object.fromEntries(
    [200, 500].map((count) => [
      `hono-zod-${count}`,
      {
        worker: 'hono-zod',
        label: `Hono floor + the ${count} catalog schemas built at start-up (no MCP runtime)`,
        bindings: { TOOL_COUNT: String(count) },
        call: add,
        eras: ['modern'],
      },
    ]),
  ),
  ...Object.fromEntries(
    SDK_TOOL_COUNTS.map((count) => [
      `sdk-tools-${count}`,
      { worker: 'sdk-tools', label: `SDK v2, ${count} tools`, bindings: { TOOL_COUNT: String(count) }, call: catalogCall },
    ]),
  ),
  'sse-bare': { worker: 'sse-bare', label: 'bare SSE writer' },
  extras: { worker: 'extras', label: 'mcp-edge extras', bindings: STATE, call: add },
  engines: { worker: 'engines', label: 'task engines', bindings: STATE },
  // One isolate of the fan-out Worker, for the heap of 2025 session streams (fanout-2025.mjs); its
  // fan-out figures run it as a pair (scripts/lib/pair.mjs), which builds it again.
  fanout: { worker: 'fanout', label: 'notification fan-out', bindings: STATE },
  'loop-edge': { worker: 'loop-edge', label: 'mcp-edge, in-isolate loop', bindings: STATE },
  'loop-hono': { worker: 'loop-hono', label: 'Hono floor, in-isolate loop' },
  'loop-hono-log': { worker: 'loop-hono-log', label: 'Hono floor + a log line, in-isolate loop' },
  // npm run bench:sdk (sdk.mjs, cg-sdk.mjs, which build them): the same `add` on the native API and through mcp-edge/sdk.
  'loop-native': { worker: 'loop-native', label: 'mcp-edge native API, in-isolate loop', bindings: STATE, sdkBench: true },
  'loop-sdk': { worker: 'loop-sdk', label: 'mcp-edge/sdk, in-isolate loop', bindings: STATE, sdkBench: true },
  // And a 22-tool server built per request (as Jina's is): on mcp-edge/sdk, and on SDK 1.x + agents.
  'loop-sdk-factory': {
    worker: 'loop-sdk-factory',
    label: 'mcp-edge/sdk, server built per request',
    bindings: STATE,
    sdkBench: true,
  },
  // SDK 1.x serves the 2025 revisions only.
  'loop-agents-factory': {
    worker: 'loop-agents-factory',
    label: 'SDK 1.x + agents, server built per request',
    eras: ['legacy'],
    sdkBench: true,
  },
}

/**
 * Every Worker `npm run bench` builds from its own folder under bench/workers/: not bench:sdk's,
 * which it never runs (and whose loop-sdk is another Worker than the SDK peer's loop build of the
 * same name, peers.mjs: both were built into one folder, the later one kept).
 */
export const BUILT_WORKERS = [
  ...new Set(Object.values(VARIANTS).flatMap((variant) => (variant.config || variant.sdkBench ? [] : [variant.worker]))),
]

/** How many catalog tools a variant serves (undefined for the others). */
export const toolCount = (variant) =>
  VARIANTS[variant].bindings?.TOOL_COUNT ? Number(VARIANTS[variant].bindings.TOOL_COUNT) : undefined

/** What a variant's start-up and calls are compared with: the 5-tool server of its runtime, or the floor. */
export function referenceOf(variant) {
  if (variant.startsWith('sdk-tools')) return 'sdk-tools-5'
  if (variant.startsWith('tools')) return 'tools-5'
  return 'hono'
}
