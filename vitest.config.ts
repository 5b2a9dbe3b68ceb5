import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { cloudflareTest } from '@cloudflare/vitest-plugin'
import { defineConfig } from 'vitest/config'
import { WORKERD_BUILD } from './scripts/lib/workerd-esbuild.mjs'

// The library's sources, under the names users import: the unit and workerd projects test the
// sources themselves (no build needed, one copy of every module); the HTTP project runs Workers
// under `wrangler dev`, which bundles the built package as a user's project would.
const source = (path: string) => fileURLToPath(new URL(`./packages/mcp-edge/src/${path}`, import.meta.url))
const alias = [
  { find: /^mcp-edge$/, replacement: source('index.ts') },
  { find: /^mcp-edge\/client$/, replacement: source('client/index.ts') },
  { find: /^mcp-edge\/cloudflare$/, replacement: source('cloudflare/index.ts') },
  { find: /^mcp-edge\/oauth$/, replacement: source('oauth/index.ts') },
  { find: /^mcp-edge\/sdk$/, replacement: source('sdk/index.ts') },
]

/** The fixture Worker's compatibility date and flags (test/fixture/wrangler.jsonc), for the auxiliary Worker. */
const FIXTURE_COMPATIBILITY = (() => {
  const config = readFileSync(fileURLToPath(new URL('./test/fixture/wrangler.jsonc', import.meta.url)), 'utf8')
  const date = config.match(/"compatibility_date":\s*"([^"]+)"/)?.[1]
  const flags = config.match(/"compatibility_flags":\s*(\[[^\]]*\])/)?.[1]
  if (!date || !flags) throw new Error('test/fixture/wrangler.jsonc: no compatibility_date or compatibility_flags')
  return { compatibilityDate: date, compatibilityFlags: JSON.parse(flags) as string[] }
})()

/**
 * The fixture's /shared-hub server as an auxiliary Worker of the workers-aux project
 * (test/fixture/shared-hub-worker.ts says why), bundled from the sources with esbuild (the copy
 * wrangler uses), as `wrangler dev` would bundle it (about 0.25 s). Its compatibility date is the
 * fixture's (test/fixture/wrangler.jsonc), so `handle_cross_request_promise_resolution` is on.
 */
async function sharedHubWorker() {
  const { build } = await import('esbuild')
  const bundled = await build({
    entryPoints: [fileURLToPath(new URL('./test/fixture/shared-hub-worker.ts', import.meta.url))],
    ...WORKERD_BUILD,
    write: false,
    external: ['cloudflare:*', 'node:*'],
    plugins: [
      {
        name: 'mcp-edge-sources',
        setup(esbuild) {
          esbuild.onResolve({ filter: /^mcp-edge(\/|$)/ }, ({ path }) => {
            const found = alias.find((entry) => entry.find.test(path))
            return found && { path: found.replacement }
          })
        },
      },
    ],
  })
  const [output] = bundled.outputFiles
  if (!output) throw new Error('esbuild made no bundle of test/fixture/shared-hub-worker.ts')
  return {
    name: 'shared-hub',
    modules: [{ type: 'ESModule' as const, path: 'shared-hub-worker.mjs', contents: output.text }],
    ...FIXTURE_COMPATIBILITY,
    durableObjects: { MCP_EVENTS: { className: 'McpEventHub', useSQLite: true } },
  }
}

/**
 * The http files that start every server they use: the OAuth, SDK adapter, fault and
 * resource-server files, and the two that test `npm run dev:pair` and the 2025 lane on two
 * isolates. They are the `http-own` project, which scripts/test.mjs runs in its second lane after
 * the workerd projects, so that the two lanes take about as long. Some that start their own
 * servers run in the http project, in the first lane, to even the lanes out (each lane runs one
 * file at a time on two cores): test/http/conformance.test.ts, and test/http/oauth.test.ts, most
 * of whose 75 s is waiting out its token's 60 s lifetime (the second lane ended about 150 s
 * after the first with it there). A file here that read a server of the http project's global
 * setup would get `inject('fixtureUrl')` undefined and fail.
 */
const OWN_SERVERS = [
  'test/http/oauth-*.test.ts',
  'test/http/*-pair.test.ts',
  'test/http/sdk-*.test.ts',
  'test/http/*-fault.test.ts',
  'test/http/resource-server*.test.ts',
  'test/http/consent-page.test.ts',
  'test/http/playground-oauth.test.ts',
]

/** Shared hub sockets across requests, inside workerd (the workers-aux project). */
const ACROSS_REQUESTS = 'test/workers/shared-sockets-across.test.ts'

// Three layers (STYLE "Tests"): pure unit tests in Node; tests inside workerd against the
// fixture Worker and its Durable Objects (one file against an auxiliary Worker); black-box tests
// over real HTTP against `wrangler dev`, which the http project's global setup starts and stops. Each template's own tests (in workerd,
// against the built package) run as a project too, and the benchmark's smoke run as the last.
export default defineConfig({
  test: {
    projects: [
      { resolve: { alias }, test: { name: 'unit', environment: 'node', include: ['test/unit/**/*.test.ts'] } },
      {
        resolve: { alias },
        plugins: [
          cloudflareTest({
            wrangler: { configPath: './test/fixture/wrangler.jsonc' },
            // The fixture keeps its spans in memory for test/workers/telemetry.test.ts; the oauth
            // template, which test/workers/registry.test.ts imports, needs its public origin.
            miniflare: { bindings: { FIXTURE_TRACE: 'record', MCP_PUBLIC_URL: 'https://oauth.example.com' } },
          }),
        ],
        test: {
          name: 'workers',
          include: ['test/workers/**/*.test.ts'],
          exclude: [ACROSS_REQUESTS],
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      // Inside workerd too, against an auxiliary Worker, which keeps the compatibility flags it is
      // given: the pool turns `handle_cross_request_promise_resolution` off for the Worker under
      // test (test/fixture/shared-hub-worker.ts). A project of its own, so that only this file
      // starts that Worker (it added about 0.3 s to each file's start in the workers project).
      {
        resolve: { alias },
        plugins: [
          cloudflareTest(async () => ({
            miniflare: {
              compatibilityDate: FIXTURE_COMPATIBILITY.compatibilityDate,
              serviceBindings: { SHARED_HUB: 'shared-hub' },
              workers: [await sharedHubWorker()],
            },
          })),
        ],
        test: { name: 'workers-aux', include: [ACROSS_REQUESTS], testTimeout: 30_000, hookTimeout: 60_000 },
      },
      // Over HTTP, each file alone in its project (its servers, clocks and streams are timed), in
      // two projects that scripts/test.mjs runs side by side in two vitest processes: most of a
      // file's time is waiting (servers starting, clocks running out, streams), and vitest runs
      // one file at a time on two cores. `http` holds every file that uses the servers its global
      // setup starts, so none sees another's traffic or log lines; `http-own` (OWN_SERVERS) files
      // that start all of their own.
      {
        test: {
          name: 'http',
          environment: 'node',
          include: ['test/http/**/*.test.ts'],
          exclude: OWN_SERVERS,
          globalSetup: ['test/http/setup.ts'],
          fileParallelism: false,
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
      {
        test: {
          name: 'http-own',
          environment: 'node',
          include: OWN_SERVERS,
          fileParallelism: false,
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
      // `npm run bench` with tiny counts: minutes of wrangler builds and workerd processes, so
      // scripts/test.mjs runs it once one of the two lanes has ended, beside the other's last files
      // and then the pack check (beside all the other tests, on two cores, it ran past its timeout
      // and slowed every other file).
      { test: { name: 'bench', environment: 'node', include: ['test/bench/**/*.test.ts'], testTimeout: 600_000 } },
      'templates/*/vitest.config.ts',
    ],
  },
})
