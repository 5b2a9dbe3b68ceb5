/**
 * Child process of profile.mjs (nodeLoop): imports a Worker module bundled for Node and calls its `fetch`
 * with the bench's `tools/call` of `add` in a sequential loop, as workerd would (request, env,
 * ctx). Prints the wall time per call as JSON; add `node --cpu-prof` by hand for a Node profile.
 *
 * usage: node profile-driver.mjs <bundle.mjs> <iterations>
 */
import { pathToFileURL } from 'node:url'
import { TEST_STATE_KEYS } from './keys.mjs'
import { ADD_CALL } from './mcp.mjs'

const [bundlePath, iterationsArg] = process.argv.slice(2)
const iterations = Number(iterationsArg)
const worker = (await import(pathToFileURL(bundlePath).href)).default
// Durable Object bindings are only wrapped on this path, never called.
const env = { MCP_STATE_KEYS: TEST_STATE_KEYS, MCP_TASKS: {}, MCP_NONCES: {} }
const ctx = { waitUntil() {}, passThroughOnException() {} }

async function call() {
  const response = await worker.fetch(new Request('http://127.0.0.1/mcp', ADD_CALL), env, ctx)
  const text = await response.text()
  if (response.status !== 200 || !text.includes('"text":"5"')) throw new Error(`bad answer: ${response.status} ${text}`)
}

for (let i = 0; i < Math.ceil(iterations / 5); i++) await call() // warm-up
const started = performance.now()
for (let i = 0; i < iterations; i++) await call()
console.log(JSON.stringify({ usPerCall: ((performance.now() - started) * 1000) / iterations }))
