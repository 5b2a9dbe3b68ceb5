/**
 * The 2026-07-28 era's fuzz cases: stateless POSTs whose `_meta` carries the protocol version and
 * client capabilities, with `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` and `Mcp-Param-*`
 * headers that mirror the body (or, on purpose, do not). Targets are the fixture's fast tools,
 * resources and prompts, so a case reaches the handlers as often as it stops at a gate.
 */
import fc from 'fast-check'
import {
  deepJson,
  type Era,
  type FuzzCase,
  type FuzzContext,
  headerText,
  jsonValue,
  mutatedState,
  traceparentText,
  uriSegment,
} from './cases.ts'

const VERSION = '2026-07-28'
const METHODS = [
  'server/discover',
  'tools/list',
  'tools/call',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'prompts/list',
  'prompts/get',
  'completion/complete',
  'subscriptions/listen',
  'tasks/get',
  'tasks/update',
  'tasks/cancel',
]
/** Fixture tools that answer at once (no sleeps, no waiting for the client to leave). */
const TOOLS = [
  'greet',
  'test_simple_text',
  'test_error_handling',
  'test_missing_capability',
  'test_header_echo',
  'json_schema_2020_12_tool',
  'test_input_required_result_elicitation',
  'test_input_required_result_tampered_state',
  'test_input_required_result_multi_round',
  'confirm_counted',
  'confirm_delete',
  'whoami',
]
const URIS = ['test://static-text', 'test://static-binary', 'test://watched-resource']
const PROMPTS = ['test_simple_prompt', 'test_prompt_with_arguments', 'test_input_required_result_prompt']

const capabilities = fc.oneof(
  fc.constant({}),
  fc.constant({ elicitation: {}, sampling: {}, roots: {} }),
  fc.constant({ extensions: { 'io.modelcontextprotocol/tasks': {} }, elicitation: {}, partialResults: {} }),
  fc.dictionary(fc.constantFrom('elicitation', 'sampling', 'roots', 'partialResults', 'extensions', 'x'), jsonValue),
  jsonValue,
)

const meta = fc.record(
  {
    'io.modelcontextprotocol/protocolVersion': fc.oneof(fc.constant(VERSION), fc.constant('2025-06-18'), fc.string(), jsonValue),
    'io.modelcontextprotocol/clientCapabilities': capabilities,
    'io.modelcontextprotocol/clientInfo': fc.oneof(fc.constant({ name: 'fuzz', version: '1' }), jsonValue),
    'io.modelcontextprotocol/logLevel': fc.oneof(fc.constantFrom('debug', 'error', 'nope'), jsonValue),
    progressToken: fc.oneof(fc.string(), fc.integer(), jsonValue),
    partialResultToken: fc.oneof(fc.string(), fc.integer(), jsonValue),
    'dev.mcp-edge/partialLog': fc.oneof(fc.record({ from: fc.integer(), limit: fc.integer() }), jsonValue),
    traceparent: fc.oneof(traceparentText, jsonValue),
    tracestate: fc.oneof(headerText, jsonValue),
    baggage: fc.oneof(headerText, jsonValue),
  },
  { requiredKeys: [] },
)

const declared = fc.constantFrom(
  {},
  { elicitation: {} },
  { elicitation: {}, sampling: {}, roots: {} },
  { elicitation: {}, partialResults: {}, extensions: { 'io.modelcontextprotocol/tasks': {} } },
)

/** `_meta` that passes the gates: the right version and declared capabilities, plus optional keys. */
const validMeta = fc.tuple(meta, declared).map(([value, clientCapabilities]) => ({
  ...value,
  'io.modelcontextprotocol/protocolVersion': VERSION,
  'io.modelcontextprotocol/clientCapabilities': clientCapabilities,
}))

function params(context: FuzzContext): fc.Arbitrary<Record<string, unknown>> {
  const argumentsValue = fc.oneof(
    fc.dictionary(fc.constantFrom('name', 'region', 'count', 'key', 'amount', 'filename', 'phone', 'email', 'x'), jsonValue),
    jsonValue,
  )
  const known = fc.record(
    {
      name: fc.oneof(fc.constantFrom(...TOOLS, ...PROMPTS), fc.string(), jsonValue),
      uri: fc.oneof(
        fc.constantFrom(...URIS),
        uriSegment.map((segment) => `test://template/${segment}/data`),
        fc.string(),
        jsonValue,
      ),
      arguments: argumentsValue,
      cursor: fc.oneof(fc.string(), jsonValue),
      taskId: fc.oneof(
        context.taskIds.length ? fc.constantFrom(...context.taskIds) : fc.uuid(),
        fc.uuid(),
        fc.string(),
        jsonValue,
      ),
      requestState: fc.oneof(mutatedState(context.states), fc.string(), jsonValue),
      inputResponses: fc.oneof(
        fc.constant({ confirm: { action: 'accept', content: { ok: true } } }),
        fc.dictionary(fc.string({ maxLength: 10 }), jsonValue),
        jsonValue,
      ),
      notifications: fc.oneof(
        fc.record({ toolsListChanged: fc.boolean(), taskIds: fc.array(fc.uuid(), { maxLength: 3 }) }, { requiredKeys: [] }),
        jsonValue,
      ),
      ref: fc.oneof(
        fc.record({ type: fc.constant('ref/prompt'), name: fc.constantFrom(...PROMPTS) }),
        fc.record({ type: fc.constant('ref/resource'), uri: fc.constant('test://template/{id}/data') }),
        jsonValue,
      ),
      argument: fc.oneof(fc.record({ name: fc.constantFrom('arg1', 'id'), value: fc.string() }), jsonValue),
      _meta: fc.oneof({ weight: 4, arbitrary: validMeta }, { weight: 1, arbitrary: meta }, { weight: 1, arbitrary: jsonValue }),
    },
    { requiredKeys: ['_meta'] },
  )
  // A retry of a real first round: the very tool and arguments a state was minted for.
  const retry = context.states.length
    ? fc.tuple(fc.constantFrom(...context.states), mutatedState(context.states), validMeta).map(([state, requestState, m]) => ({
        name: state.tool,
        arguments: state.arguments,
        requestState,
        inputResponses: { confirm: { action: 'accept', content: { ok: true } } },
        _meta: m,
      }))
    : known
  return fc.oneof({ weight: 5, arbitrary: known }, { weight: 1, arbitrary: retry })
}

/** Plausible arguments for the fixture's tools and prompts: right shapes with odd values. */
const toolArguments = fc.oneof(
  fc.constant({}),
  fc.record({ name: fc.string() }),
  fc.record({ region: fc.string({ minLength: 1, maxLength: 10 }), count: fc.integer() }, { requiredKeys: ['region'] }),
  fc.record({ key: fc.string(), amount: fc.integer() }),
  fc.record({ filename: fc.string() }),
  fc.record({ phone: fc.string(), contactMethod: fc.constantFrom('phone', 'email') }),
)

/** Requests shaped as the spec says, per method, with odd values where values are free. */
function wellFormedParams(context: FuzzContext): fc.Arbitrary<{ method: string; params: Record<string, unknown> }> {
  const taskId = context.taskIds.length ? fc.oneof(fc.constantFrom(...context.taskIds), fc.uuid()) : fc.uuid()
  const byMethod: Record<string, fc.Arbitrary<Record<string, unknown>>> = {
    'server/discover': fc.constant({}),
    'tools/list': fc.record({ cursor: fc.string() }, { requiredKeys: [] }),
    'tools/call': fc.record({ name: fc.constantFrom(...TOOLS), arguments: toolArguments }),
    'resources/list': fc.constant({}),
    'resources/templates/list': fc.constant({}),
    'resources/read': fc.record({
      uri: fc.oneof(
        fc.constantFrom(...URIS),
        uriSegment.map((segment) => `test://template/${segment}/data`),
      ),
    }),
    'prompts/list': fc.constant({}),
    'prompts/get': fc.record({
      name: fc.constantFrom(...PROMPTS),
      arguments: fc.record({ arg1: fc.string(), arg2: fc.string() }, { requiredKeys: [] }),
    }),
    'completion/complete': fc.record({
      ref: fc.oneof(
        fc.record({ type: fc.constant('ref/prompt'), name: fc.constantFrom(...PROMPTS) }),
        fc.constant({ type: 'ref/resource', uri: 'test://template/{id}/data' }),
      ),
      argument: fc.record({ name: fc.constantFrom('arg1', 'id'), value: fc.string() }),
    }),
    'subscriptions/listen': fc.constant({ notifications: { toolsListChanged: true } }),
    'tasks/get': fc.record({ taskId }),
    'tasks/update': fc.record({ taskId, inputResponses: fc.dictionary(fc.string({ maxLength: 8 }), jsonValue) }),
    'tasks/cancel': fc.record({ taskId }),
  }
  return fc
    .constantFrom(...METHODS)
    .chain((method) =>
      fc
        .tuple(byMethod[method] as fc.Arbitrary<Record<string, unknown>>, validMeta)
        .map(([p, m]) => ({ method, params: { ...p, _meta: m } })),
    )
}

function wellFormed(context: FuzzContext): fc.Arbitrary<FuzzCase> {
  return fc
    .tuple(wellFormedParams(context), fc.oneof(fc.integer(), fc.string({ maxLength: 12 })))
    .map(([{ method, params }, id]) => ({ jsonrpc: '2.0', id, method, params }))
    .chain((body) =>
      headersFor(body.method, body).map((headers) => ({
        method: 'POST',
        headers,
        body: JSON.stringify(body),
        notification: false,
      })),
    )
}

const NAME_FIELD: Record<string, string> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
}

const asHeader = (value: unknown) =>
  typeof value === 'string' && /^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/.test(value)
    ? value
    : `=?base64?${btoa(String.fromCharCode(...new TextEncoder().encode(typeof value === 'string' ? value : JSON.stringify(value))))}?=`

/** Headers that mirror the body, then a few changed, dropped or added at random. */
function headersFor(method: unknown, body: Record<string, unknown> | undefined) {
  const base: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': VERSION,
  }
  if (typeof method === 'string') base['mcp-method'] = asHeader(method)
  const p = body?.params as Record<string, unknown> | undefined
  const field = typeof method === 'string' ? NAME_FIELD[method] : undefined
  if (field && p && p[field] !== undefined) base['mcp-name'] = asHeader(p[field])
  const region = (p?.arguments as Record<string, unknown> | undefined)?.region
  if (region !== undefined) base['mcp-param-region'] = asHeader(region)
  const names = ['content-type', 'accept', 'mcp-protocol-version', 'mcp-method', 'mcp-name', 'mcp-param-region', 'origin']
  const mutated = fc
    .record(
      {
        drop: fc.subarray(names, { maxLength: 2 }),
        change: fc.dictionary(fc.constantFrom(...names, 'authorization', 'mcp-param-count'), headerText, { maxKeys: 2 }),
        traceparent: traceparentText,
      },
      { requiredKeys: [] },
    )
    .map(({ drop = [], change = {}, traceparent }) => {
      const headers: Record<string, string> = { ...base, ...change }
      if (traceparent !== undefined) headers.traceparent = traceparent
      for (const name of drop) delete headers[name]
      return headers
    })
  return fc.oneof({ weight: 3, arbitrary: fc.constant(base) }, { weight: 2, arbitrary: mutated })
}

function envelope(context: FuzzContext): fc.Arbitrary<FuzzCase> {
  return fc
    .record(
      {
        jsonrpc: fc.oneof({ weight: 9, arbitrary: fc.constant('2.0') }, { weight: 1, arbitrary: jsonValue }),
        id: fc.oneof(
          { weight: 8, arbitrary: fc.oneof(fc.integer(), fc.string({ maxLength: 12 })) },
          { weight: 1, arbitrary: jsonValue },
        ),
        method: fc.oneof({ weight: 8, arbitrary: fc.constantFrom(...METHODS) }, { weight: 1, arbitrary: fc.string() }),
        params: params(context),
      },
      { requiredKeys: ['method'] },
    )
    .chain((body) => headersFor(body.method, body).map((headers) => ({ body, headers })))
    .map(({ body, headers }) => ({
      method: 'POST',
      headers,
      body: JSON.stringify(body),
      notification: !('id' in body),
    }))
}

/** Bodies that are not a JSON-RPC request: garbage, batches, responses, deep nesting. */
const oddBodies: fc.Arbitrary<FuzzCase> = fc
  .oneof(
    fc.string(),
    fc.json(),
    deepJson,
    deepJson.map(
      (deep) => `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"greet","arguments":{"name":${deep}}}}`,
    ),
    fc.array(jsonValue, { maxLength: 3 }).map((batch) => JSON.stringify(batch)),
    fc.constant('{"jsonrpc":"2.0","id":1,"result":{}}'),
  )
  .chain((body) => headersFor('tools/call', undefined).map((headers) => ({ method: 'POST', headers, body, notification: false })))

/** Other HTTP methods, with and without a body. */
const otherMethods: fc.Arbitrary<FuzzCase> = fc
  .tuple(fc.constantFrom('GET', 'DELETE', 'PUT', 'PATCH', 'OPTIONS'), fc.option(fc.json(), { nil: undefined }))
  .map(([method, body]) => ({
    method,
    headers: { accept: 'application/json, text/event-stream', origin: 'http://localhost:6274' },
    body: method === 'GET' ? undefined : body,
    notification: false,
  }))

export const era2026: Era = {
  name: '2026-07-28',
  cases: (context) =>
    fc.oneof(
      { weight: 8, arbitrary: wellFormed(context) },
      { weight: 6, arbitrary: envelope(context) },
      { weight: 3, arbitrary: oddBodies },
      { weight: 1, arbitrary: otherMethods },
    ),
}
