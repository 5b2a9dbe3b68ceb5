/**
 * Child process of profile.mjs: imports a Worker module bundled for Node and calls its `fetch`
 * with the variant's call (bench/lib/variants.mjs), as workerd would (request, env, ctx), once:
 * the import (module evaluation, registration) and the first call; prints their wall time. Run
 * it under `node --cpu-prof` for the start-up profile.
 *
 * usage: node profile-driver.mjs <bundle.mjs> <variant>
 */
import { pathToFileURL } from 'node:url'
import { TEST_STATE_KEYS } from './keys.mjs'
import { VARIANTS } from './variants.mjs'

const [bundlePath, variant] = process.argv.slice(2)
const { call } = VARIANTS[variant]
// Durable Object bindings are only wrapped on this path, never called.
const env = { MCP_STATE_KEYS: TEST_STATE_KEYS, MCP_TASKS: {}, MCP_NONCES: {}, MCP_INPUT_RELAY: {}, ...VARIANTS[variant].bindings }
const ctx = { waitUntil() {}, passThroughOnException() {} }

const started = performance.now()
const worker = (await import(pathToFileURL(bundlePath).href)).default

const response = await worker.fetch(new Request('http://127.0.0.1/mcp', call.request), env, ctx)
const text = await response.text()
if (response.status !== 200 || !text.includes(JSON.stringify(call.answer)))
  throw new Error(`bad answer: ${response.status} ${text}`)
console.log(JSON.stringify({ startupMs: performance.now() - started }))
