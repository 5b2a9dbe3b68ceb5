/**
 * Bench Worker: the template Worker (src/worker.ts, with its Durable Objects) and the Hono floor
 * (hono.ts) in one isolate, plus POST /bench/loop?app=edge|hono&n=N, which hands the app N
 * requests built from the posted `{ url, headers, body }` one after another, as workerd would
 * (`app.fetch(request, env, ctx)`), and reads each answer, which must equal the posted `expect`
 * (without `expect`, one call whose answer is returned, to be verified by the caller).
 * Timed from outside by workerd's CPU: the JavaScript of a call without the HTTP around it.
 * Anything else goes to the template (the 2025-era client's `initialize`).
 *
 * JavaScript for the reason given in extras.js.
 */
import template from '../../src/worker.ts'
import floor from './hono.ts'

export { McpEventHub, McpInputRelay, McpNonceLedger, McpTaskObject, NotesStore } from '../../src/worker.ts'

const APPS = { edge: template, hono: floor }

async function loop(request, env, ctx) {
  const params = new URL(request.url).searchParams
  const app = APPS[params.get('app')]
  const count = Number(params.get('n'))
  const { url, headers, body, expect } = await request.json()
  const call = () => app.fetch(new Request(url, { method: 'POST', headers, body }), env, ctx)
  if (expect === undefined) return call()
  for (let i = 0; i < count; i++) {
    const response = await call()
    const text = await response.text()
    if (text !== expect) return new Response(`call ${i}: ${response.status} ${text}`, { status: 500 })
  }
  return new Response(null, { status: 204 })
}

export default {
  fetch(request, env, ctx) {
    if (new URL(request.url).pathname === '/bench/loop') return loop(request, env, ctx)
    return template.fetch(request, env, ctx)
  },
}
