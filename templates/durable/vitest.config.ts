import { cloudflareTest } from '@cloudflare/vitest-plugin'
import { defineConfig } from 'vitest/config'

// The tests run inside workerd, against this Worker and its Durable Objects as wrangler.jsonc
// configures them, with a state key of their own (not your .dev.vars).
// The first request loads the Worker's modules through Vite: one to four seconds on an idle machine,
// more on a busy CI runner, so the first test may take longer than Vitest's default five seconds.
// One runtime: package.json's `overrides` give @cloudflare/vitest-plugin the miniflare and wrangler
// of this project's wrangler, so the tests and `wrangler dev` run the same workerd (and npm
// installs one copy of it, not two). Change them together when you update wrangler.
// Quiet when the tests pass: the server's log lines (one per request) are printed for a failing
// test only, under it. `npm test -- --silent=false` prints them for every test.
export default defineConfig({
  test: { testTimeout: 20_000, silent: 'passed-only' },
  plugins: [
    cloudflareTest({
      wrangler: { configPath: './wrangler.jsonc' },
      miniflare: { bindings: { MCP_STATE_KEYS: 'test:dGVzdCBrZXkgZm9yIHRoZSB0ZW1wbGF0ZSB0ZXN0cyEhIQ==' } },
    }),
  ],
})
