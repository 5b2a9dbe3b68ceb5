import { fileURLToPath } from 'node:url'
import { cloudflareTest } from '@cloudflare/vitest-plugin'
import { defineConfig } from 'vitest/config'

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

// Three layers (STYLE "Tests"): pure unit tests in Node; tests inside workerd against the
// fixture Worker and its Durable Objects; black-box tests over real HTTP against `wrangler dev`,
// which the http project's global setup starts and stops. Each template's own tests (in workerd,
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
        test: { name: 'workers', include: ['test/workers/**/*.test.ts'], testTimeout: 30_000, hookTimeout: 60_000 },
      },
      {
        test: {
          name: 'http',
          environment: 'node',
          include: ['test/http/**/*.test.ts'],
          globalSetup: ['test/http/setup.ts'],
          fileParallelism: false,
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
      // `npm run bench` with tiny counts: minutes of wrangler builds and workerd processes, so
      // scripts/test.mjs runs it after the others, alone (beside them, on two cores, it ran past
      // its timeout and slowed every other file).
      { test: { name: 'bench', environment: 'node', include: ['test/bench/**/*.test.ts'], testTimeout: 600_000 } },
      'templates/*/vitest.config.ts',
    ],
  },
})
