#!/usr/bin/env node
/**
 * `npx mcp-edge spans`: the last MCP spans of a server under `wrangler dev`, read from wrangler's
 * local trace store (its local explorer's SQL endpoint, /cdn-cgi/local/explorer/api/local/
 * observability/query). A server made with `telemetry: { native: workersTracing() }` (the
 * templates are) mirrors each MCP span there, beside the platform's own (the invocation, fetch,
 * Durable Objects), so a developer sees traces without an account or a collector.
 */
import { parseArgs } from 'node:util'

const USAGE = `Usage: mcp-edge spans [--port 8787] [--last 20] [--trace <id>]

Prints the last MCP spans of \`npm run dev\` (wrangler dev on 127.0.0.1:<port>), oldest first:
time, duration, name, outcome, the platform trace id, and the MCP trace id (the client's, when
its request carried one).`

const ROW = `select s.trace_id, s.span_id, s.parent_id, s.name, s.start_ms, s.duration_ms, s.outcome, s.error,
  json(s.attributes) as attributes, p.name as parent_name
  from spans s left join spans p on p.trace_id = s.trace_id and p.span_id = s.parent_id`
const MCP = `(json_extract(s.attributes, '$."mcp.method.name"') is not null or s.name like 'task.%')`

function fail(message) {
  console.error(message)
  process.exit(1)
}

async function query(origin, sql, params) {
  let response
  try {
    response = await fetch(`${origin}/cdn-cgi/local/explorer/api/local/observability/query`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ sql, params }),
    })
  } catch {
    fail(`Nothing answers at ${origin}: start the server first (npm run dev), or pass --port.`)
  }
  const body = await response.json().catch(() => undefined)
  if (!response.ok || !body?.success) {
    fail(
      `wrangler's trace store refused the query (${response.status}): ${JSON.stringify(body?.errors ?? body)}. It needs wrangler 4.118 or later.`,
    )
  }
  const { columns, rows } = body.result
  return rows.map((row) => Object.fromEntries(columns.map((column, i) => [column, row[i]])))
}

/** One line per span: when, how long, what, how it ended, and where to find its trace. */
function line(span) {
  let attributes = {}
  try {
    attributes = JSON.parse(span.attributes ?? '{}') ?? {}
  } catch {
    // a span whose attributes are not JSON: shown without them
  }
  const outcome =
    attributes['error.type'] ?? attributes['mcp_edge.result_type'] ?? attributes['mcp_edge.task.status'] ?? span.outcome ?? ''
  const ms = span.duration_ms === null ? 'running' : `${span.duration_ms} ms`
  const mcpTrace = attributes['mcp_edge.trace_id'] ? `  mcp trace ${attributes['mcp_edge.trace_id']}` : ''
  const under = span.parent_name ? `  (in ${span.parent_name})` : ''
  return `${new Date(span.start_ms).toISOString()}  ${ms.padStart(8)}  ${span.name.padEnd(32)} ${String(outcome).padEnd(14)} trace ${span.trace_id}${mcpTrace}${under}`
}

async function spans(args) {
  let values
  try {
    ;({ values } = parseArgs({
      args,
      options: {
        port: { type: 'string', default: process.env.PORT ?? '8787' },
        last: { type: 'string', default: '20' },
        trace: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }))
  } catch (error) {
    fail(`${error.message}\n\n${USAGE}`)
  }
  if (values.help) return console.log(USAGE)
  const last = Number(values.last)
  if (!Number.isInteger(last) || last < 1 || last > 10_000) fail('--last takes a whole number from 1 to 10000')
  if (!/^\d{1,5}$/.test(values.port)) fail('--port takes a port number')
  const origin = `http://127.0.0.1:${values.port}`
  const found = values.trace
    ? await query(
        origin,
        `${ROW} where ${MCP} and (s.trace_id = ? or json_extract(s.attributes, '$."mcp_edge.trace_id"') = ?) order by s.start_ms desc limit ?`,
        [values.trace, values.trace, last],
      )
    : await query(origin, `${ROW} where ${MCP} order by s.start_ms desc limit ?`, [last])
  if (found.length === 0) return console.log(`No MCP spans yet at ${origin}. Send the server a request, then run this again.`)
  for (const span of found.reverse()) console.log(line(span))
}

const [command, ...rest] = process.argv.slice(2)
if (command === 'spans') await spans(rest)
else if (command === undefined || command === '--help' || command === '-h') console.log(USAGE)
else fail(`Unknown command "${command}".\n\n${USAGE}`)
