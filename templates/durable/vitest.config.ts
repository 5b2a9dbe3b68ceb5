import { cloudflareTest } from '@cloudflare/vitest-plugin'
import { defineConfig } from 'vitest/config'

// The tests run inside workerd, against this Worker and its Durable Objects as wrangler.jsonc
// configures them, with a state key of their own (not your .dev.vars).
export default defineConfig({
  plugins: [
    cloudflareTest({
      wrangler: { configPath: './wrangler.jsonc' },
      miniflare: { bindings: { MCP_STATE_KEYS: 'test:dGVzdCBrZXkgZm9yIHRoZSB0ZW1wbGF0ZSB0ZXN0cyEhIQ==' } },
    }),
  ],
})
