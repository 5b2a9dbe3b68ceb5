/**
 * The requests the bench sends: valid 2026-07-28 MCP requests with the standard headers and the
 * required `_meta` keys, the same calls as a 2025-era client sends them (after `initialize`, with
 * the session id the server minted, if any), and checks of their answers.
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

/** The many-tools load request: tool 0 of bench/workers/catalog.ts, with nested arguments, and its answer. */
export const CATALOG_ARGUMENTS = {
  query: 'acme',
  filters: { status: 'open', tags: ['vip', 'renewal'], owner: { id: 'u-17', team: 'emea' }, range: { from: 10, to: 90 } },
  limit: 5,
  fields: ['id', 'name', 'updatedAt'],
}
export const CATALOG_TOOL = 'crm_search_000'
export const CATALOG_ANSWER = 'crm_search_000: 5 open results for "acme" (vip, renewal; owner u-17)'
export const CATALOG_CALL = mcpRequest('tools/call', { name: CATALOG_TOOL, arguments: CATALOG_ARGUMENTS }, { name: CATALOG_TOOL })

/** The 2025-era revision the legacy rows speak. */
export const LEGACY_VERSION = '2025-11-25'

/**
 * A 2025-era request: no `_meta`, the negotiated version header and the session id (when the
 * server minted one). `id: null` makes it a notification (no id).
 */
export function legacyRequest(method, params, sessionId, { id = 1 } = {}) {
  const headers = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': LEGACY_VERSION,
  }
  if (sessionId) headers['mcp-session-id'] = sessionId
  const message = id === null ? { jsonrpc: '2.0', method, params } : { jsonrpc: '2.0', id, method, params }
  return { method: 'POST', headers, body: JSON.stringify(message) }
}

/** `initialize` as a 2025-era client sends it; returns the session id the server minted, or null (stateless). */
export async function legacyConnect(endpoint) {
  const { headers, ...init } = legacyRequest('initialize', {
    protocolVersion: LEGACY_VERSION,
    capabilities: {},
    clientInfo: { name: 'mcp-edge-bench', version: '0.0.1' },
  })
  delete headers['mcp-protocol-version']
  const response = await fetch(endpoint, { ...init, headers })
  const { status, json } = await parse(response)
  if (status !== 200 || json?.result?.protocolVersion !== LEGACY_VERSION) {
    throw new Error(`${endpoint} answered initialize wrongly: HTTP ${status} ${JSON.stringify(json)}`)
  }
  const sessionId = response.headers.get('mcp-session-id')
  const initialized = await fetch(endpoint, legacyRequest('notifications/initialized', undefined, sessionId, { id: null }))
  await initialized.arrayBuffer()
  // 202 is what the 2025 transport asks; the SDK's stateless fallback answers 200.
  if (initialized.status !== 202 && initialized.status !== 200)
    throw new Error(`${endpoint} answered notifications/initialized with HTTP ${initialized.status}`)
  return sessionId
}

/** The 2025-era `tools/call add` for a session (or none). */
export function legacyAddCall(sessionId) {
  return legacyRequest('tools/call', { name: 'add', arguments: { a: 2, b: 3 } }, sessionId)
}

/** POST a request; returns the JSON-RPC response (also when it came as SSE: its last message). */
export async function send(endpoint, request) {
  // A Worker that never answers (a start whose inspector stalled) fails the step, not the whole bench.
  return parse(await fetch(endpoint, { ...request, signal: request.signal ?? AbortSignal.timeout(SEND_TIMEOUT_MS) }))
}

/**
 * A lane that sends a bearer token must be one that checks it: the same call with a wrong token
 * and with none is answered 401, or the lane would measure a Worker that ignores the header (a
 * missing binding leaves the demo in its local-only mode, which serves loopback callers as is).
 */
export async function verifyTokenChecked(endpoint, request) {
  const { authorization, ...headers } = request.headers
  for (const [what, sent] of [
    ['a wrong token', { ...headers, authorization: 'Bearer wrong-token-wrong-token-wrong-token' }],
    ['no token', headers],
  ]) {
    const { status } = await send(endpoint, { ...request, headers: sent })
    if (status !== 401) throw new Error(`${endpoint} answered ${what} with HTTP ${status}, not 401: it does not check the token`)
  }
}

/** How long one request of the bench's own (not a load's) may take. */
const SEND_TIMEOUT_MS = 60_000

async function parse(response) {
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

/** Throws unless the call answered 200 with `expected` as its text; returns the response body (what load runs must match). */
export async function verifyCall(endpoint, request = ADD_CALL, expected = '5') {
  const { status, text: body, json } = await send(endpoint, request)
  const text = json?.result?.content?.[0]?.text
  if (status !== 200 || text !== expected || json?.result?.isError) {
    throw new Error(
      `${endpoint} answered ${JSON.parse(request.body).params.name} wrongly: HTTP ${status} ${JSON.stringify(json)}`,
    )
  }
  return body
}
