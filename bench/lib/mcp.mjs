/**
 * The requests the bench sends: valid 2026-07-28 MCP requests with the standard headers and the
 * required `_meta` keys, and checks of their answers.
 */
export const PROTOCOL_VERSION = '2026-07-28'
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks'

/** Headers and body of one request. `name` is the Mcp-Name header (tool name or task id). */
export function mcpRequest(method, params, { id = 1, name, capabilities = {}, meta = {} } = {}) {
  const headers = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': PROTOCOL_VERSION,
    'mcp-method': method,
  }
  if (name !== undefined) headers['mcp-name'] = name
  const _meta = {
    'io.modelcontextprotocol/protocolVersion': PROTOCOL_VERSION,
    'io.modelcontextprotocol/clientCapabilities': capabilities,
    ...meta,
  }
  return { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta } }) }
}

/** The load request: `tools/call` of `add` with a = 2, b = 3. */
export const ADD_CALL = mcpRequest('tools/call', { name: 'add', arguments: { a: 2, b: 3 } }, { name: 'add' })

/** POST a request; returns the JSON-RPC response (also when it came as SSE: its last message). */
export async function send(endpoint, request) {
  const response = await fetch(endpoint, request)
  const text = await response.text()
  const type = response.headers.get('content-type') ?? ''
  const json = type.includes('text/event-stream') ? lastSseMessage(text) : JSON.parse(text)
  return { status: response.status, type, text, json }
}

function lastSseMessage(text) {
  const data = text
    .split(/\r?\n/)
    .filter((line) => line.startsWith('data:'))
    .map((line) => line.slice(5).trim())
  return JSON.parse(data.at(-1) ?? 'null')
}

/** Throws unless `add` answered 200 with the text "5"; returns the response body. */
export async function verifyAdd(endpoint) {
  const { status, text: body, json } = await send(endpoint, ADD_CALL)
  const text = json?.result?.content?.[0]?.text
  if (status !== 200 || text !== '5') {
    throw new Error(`${endpoint} answered add(2, 3) wrongly: HTTP ${status} ${JSON.stringify(json)}`)
  }
  return body
}
