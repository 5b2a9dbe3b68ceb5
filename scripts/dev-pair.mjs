#!/usr/bin/env node
/**
 * `npm run dev:pair`: the template Worker as two isolates sharing its Durable Objects, on
 * http://127.0.0.1:$PORT/mcp and http://127.0.0.1:$((PORT+1))/mcp (PORT defaults to 8787). A
 * change made through one isolate must reach listeners on the other, as it must across the many
 * isolates Cloudflare runs; `wrangler dev` runs only one. See scripts/lib/pair.mjs for how.
 *
 *   node scripts/dev-pair.mjs [--config apps/demo/wrangler.jsonc] [--port 8787] [--persist-to DIR]
 *                             [--var NAME:VALUE]... [--log-level info] [--isolates 2]
 *
 * `--isolates N` runs N isolates on ports PORT … PORT+N-1 (the scale bench runs four). `--port 0`
 * picks free ports. State persists in DIR (default `.wrangler/state`, the same
 * directory and layout as `wrangler dev`), so a killed pair restarted on DIR finds its objects.
 * When both sockets accept connections it prints one line, `[dev:pair] ready {json}` with the
 * origins, the pid and the state directory. SIGINT or SIGTERM stops it; its workerd runs in
 * its process group, so `kill -- -<pid>` (what the tests do) stops everything.
 */
import { parseArgs } from 'node:util'
import { startPair } from './lib/pair.mjs'

const { values } = parseArgs({
  options: {
    config: { type: 'string', short: 'c', default: 'apps/demo/wrangler.jsonc' },
    port: { type: 'string', default: process.env.PORT ?? '8787' },
    'persist-to': { type: 'string' },
    var: { type: 'string', multiple: true, default: [] },
    'log-level': { type: 'string', default: 'info' },
    isolates: { type: 'string', default: '2' },
  },
})

const port = Number.parseInt(values.port, 10)
if (!Number.isInteger(port) || port < 0 || port > 65534) {
  console.error(`[dev:pair] --port must be 0 or a port below 65535 (got ${values.port})`)
  process.exit(2)
}
const isolates = Number.parseInt(values.isolates, 10)
if (!Number.isInteger(isolates) || isolates < 1 || isolates > 26 || (port > 0 && port + isolates > 65536)) {
  console.error(`[dev:pair] --isolates must be 1 to 26, with every port below 65536 (got ${values.isolates})`)
  process.exit(2)
}
const vars = {}
for (const pair of values.var) {
  const colon = pair.indexOf(':')
  if (colon <= 0) {
    console.error(`[dev:pair] --var takes NAME:VALUE (got ${pair})`)
    process.exit(2)
  }
  vars[pair.slice(0, colon)] = pair.slice(colon + 1)
}

const pair = await startPair({
  config: values.config,
  port,
  persistTo: values['persist-to'],
  vars,
  logLevel: values['log-level'],
  isolates,
})
let stopping = false
async function stop() {
  if (stopping) return
  stopping = true
  await pair.dispose()
  process.exit(0)
}
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => void stop())

for (const [i, url] of pair.urls.entries()) console.log(`[dev:pair] isolate ${String.fromCharCode(97 + i)}: ${url}/mcp`)
console.log(`[dev:pair] Durable Object state: ${pair.persistTo}`)
console.log(`[dev:pair] ready ${JSON.stringify({ urls: pair.urls, pid: process.pid, persistTo: pair.persistTo })}`)
