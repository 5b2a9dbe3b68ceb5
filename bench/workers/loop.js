/**
 * The in-isolate loop of the bench (bench/lib/isolate-loop.mjs): a Worker's app behind
 * POST /bench/loop?n=N, which hands the app N requests built from the posted `{ url, headers,
 * body }` one after another, as workerd would (`app.fetch(request, env, ctx)`), and reads each
 * answer, which must equal the posted `expect` (without `expect`: one call, its answer returned
 * for the caller to verify; with `n=0`: nothing, the cost of the loop request itself). Timed from
 * outside by workerd's CPU: the JavaScript of a call without the HTTP around it. Anything else
 * goes to the app. loop-edge.js and loop-hono.js wrap the template and the floor, each in its own
 * Worker (its own isolate).
 */
async function loop(app, request, env, ctx) {
  const count = Number(new URL(request.url).searchParams.get('n'))
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

export function withLoop(app) {
  return {
    fetch(request, env, ctx) {
      if (new URL(request.url).pathname === '/bench/loop') return loop(app, request, env, ctx)
      return app.fetch(request, env, ctx)
    },
  }
}
