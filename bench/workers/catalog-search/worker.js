/**
 * The catalog-search bench Worker (bench/catalog-search.mjs): the first TOOL_COUNT tools of
 * bench/workers/catalog.ts, schemas given as functions, as the many-tools Worker registers them;
 * with TOOL_SEARCH set, behind `toolSearch({ alwaysListed })` (docs/catalogs.md): `tools/list` carries the first five
 * tools and `search_tools`. Both are bindings set per instance by the script.
 *
 * JavaScript for the reason given in extras.js (`cloudflare:workers` under Node's types).
 */
import { env } from 'cloudflare:workers'
import { Hono } from 'hono/tiny'
import { createMcpServer, mcp, toolSearch } from 'mcp-edge'
import { catalog } from '../catalog.ts'

const tools = catalog(Number(env.TOOL_COUNT))
const search = env.TOOL_SEARCH ? toolSearch({ alwaysListed: tools.slice(0, 5).map((tool) => tool.name) }) : undefined
const server = createMcpServer({ name: 'bench-catalog-search', version: '0.0.1', toolSearch: search })
for (const tool of tools) {
  server.tool(tool.name, { description: tool.description, input: tool.input, annotations: tool.annotations }, tool.handler)
}

const app = new Hono()
app.route('/mcp', mcp(server))
export default app
