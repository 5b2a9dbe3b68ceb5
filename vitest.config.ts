import { cloudflareTest } from '@cloudflare/vitest-plugin'
import { defineConfig } from 'vitest/config'

// Three layers (STYLE "Tests"): pure unit tests in Node; tests inside workerd against the
// fixture Worker and its Durable Objects; black-box tests over real HTTP against `wrangler dev`,
// which the http project's global setup starts and stops.
export default defineConfig({
  test: {
    projects: [
      { test: { name: 'unit', environment: 'node', include: ['test/unit/**/*.test.ts'] } },
      {
        plugins: [cloudflareTest({ wrangler: { configPath: './test/fixture/wrangler.jsonc' } })],
        test: { name: 'workers', include: ['test/workers/**/*.test.ts'], testTimeout: 30_000 },
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
    ],
  },
})
