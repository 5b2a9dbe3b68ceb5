/**
 * The 2025-era fuzz cases (the legacy lane): `initialize` with good and bad params, requests
 * without `_meta` carrying real, mutated, foreign or missing session ids and version headers (some
 * with mcp-remote's extra `Mcp-Method`), the 2025-only methods, notifications (`initialized`,
 * `cancelled`), JSON-RPC responses aimed at pending requests that do not exist, and 2025-03-26
 * batches of all of these. Sessions come from real handshakes without client capabilities, so a
 * tool that asks the client fails at once instead of waiting for an answer.
 */
import fc from 'fast-check'
import { type Era, type FuzzCase, type FuzzContext, headerText, jsonValue, traceparentText, uriSegment } from './cases.ts'

const LEGACY_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26']
const METHODS = [
  'ping',
  'logging/setLevel',
  'resources/subscribe',
  'resources/unsubscribe',
  'tools/list',
  'tools/call',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'prompts/list',
  'prompts/get',
  'completion/complete',
  'server/discover',
  'subscriptions/listen',
  'tasks/get',
]
/** Fixture tools that answer at once; those that ask fail fast (the sessions declare nothing). */
const TOOLS = [
  'greet',
  'test_simple_text',
  'test_error_handling',
  'test_missing_capability',
  'test_image_content',
  'stream_mixed',
  'test_input_required_result_elicitation',
  'confirm_counted',
  'whoami',
  'structured_report',
]
const PROMPTS = ['test_simple_prompt', 'test_prompt_with_arguments']

/** A real session id, one changed character of it, another's shape, or nothing. */
function session(context: FuzzContext): fc.Arbitrary<string | undefined> {
  const real = context.sessions.map((known) => known.id)
  if (real.length === 0) return fc.option(headerText, { nil: undefined })
  return fc.oneof(
    { weight: 5, arbitrary: fc.constantFrom(...real) },
    {
      weight: 2,
      arbitrary: fc.tuple(fc.constantFrom(...real), fc.nat()).map(([id, at]) => {
        const index = at % id.length
        return `${id.slice(0, index)}${id[index] === 'A' ? 'B' : 'A'}${id.slice(index + 1)}`
      }),
    },
    { weight: 1, arbitrary: headerText },
    { weight: 2, arbitrary: fc.constant(undefined) },
  )
}

const versionHeader = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...LEGACY_VERSIONS) },
  { weight: 1, arbitrary: fc.constant('2026-07-28') },
  { weight: 1, arbitrary: headerText },
  { weight: 3, arbitrary: fc.constant(undefined) },
)

const paramsByMethod: Record<string, fc.Arbitrary<unknown>> = {
  'logging/setLevel': fc.record({ level: fc.oneof(fc.constantFrom('debug', 'info', 'emergency', 'loud'), jsonValue) }),
  'resources/subscribe': fc.record(
    { uri: fc.oneof(fc.constant('test://watched-resource'), fc.string(), jsonValue) },
    { requiredKeys: [] },
  ),
  'resources/unsubscribe': fc.record({ uri: fc.oneof(fc.constant('test://watched-resource'), jsonValue) }, { requiredKeys: [] }),
  'tools/call': fc.record(
    {
      name: fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...TOOLS) }, { weight: 1, arbitrary: jsonValue }),
      arguments: fc.oneof(
        fc.record({ name: fc.string(), key: fc.string(), amount: fc.integer(), city: fc.string() }, { requiredKeys: [] }),
        jsonValue,
      ),
      _meta: fc.record(
        { progressToken: fc.oneof(fc.string(), fc.integer(), jsonValue), traceparent: fc.oneof(traceparentText, jsonValue) },
        { requiredKeys: [] },
      ),
      requestState: fc.string(),
      inputResponses: jsonValue,
    },
    { requiredKeys: ['name'] },
  ),
  'resources/read': fc.record({
    uri: fc.oneof(
      fc.constantFrom('test://static-text', 'test://static-binary'),
      uriSegment.map((segment) => `test://template/${segment}/data`),
      jsonValue,
    ),
  }),
  'prompts/get': fc.record(
    {
      name: fc.oneof(fc.constantFrom(...PROMPTS), jsonValue),
      arguments: fc.oneof(fc.record({ arg1: fc.string(), arg2: fc.string() }), jsonValue),
    },
    { requiredKeys: ['name'] },
  ),
  'completion/complete': fc.record({
    ref: fc.oneof(fc.constant({ type: 'ref/prompt', name: 'test_prompt_with_arguments' }), jsonValue),
    argument: fc.oneof(fc.record({ name: fc.constant('arg1'), value: fc.string() }), jsonValue),
  }),
}

const initialize = fc.record(
  {
    protocolVersion: fc.oneof(fc.constantFrom(...LEGACY_VERSIONS, '2024-11-05', '2026-07-28'), fc.string(), jsonValue),
    capabilities: fc.oneof(fc.constant({}), fc.constant({ elicitation: {}, roots: {} }), jsonValue),
    clientInfo: fc.oneof(fc.constant({ name: 'fuzz', version: '1' }), jsonValue),
  },
  { requiredKeys: [] },
)

const id = fc.oneof(fc.integer(), fc.string({ maxLength: 12 }))

/** One message of this era: a request, a notification or a response. */
const message: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc
      .constantFrom(...METHODS)
      .chain((method) =>
        fc
          .tuple(id, paramsByMethod[method] ?? fc.oneof(fc.constant(undefined), fc.constant({}), jsonValue))
          .map(([requestId, params]) =>
            params === undefined ? { jsonrpc: '2.0', id: requestId, method } : { jsonrpc: '2.0', id: requestId, method, params },
          ),
      ),
  },
  {
    weight: 2,
    arbitrary: fc
      .tuple(id, initialize)
      .map(([requestId, params]) => ({ jsonrpc: '2.0', id: requestId, method: 'initialize', params })),
  },
  {
    weight: 2,
    arbitrary: fc.oneof(
      fc.constant({ jsonrpc: '2.0', method: 'notifications/initialized' }),
      fc.tuple(id).map(([requestId]) => ({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId } })),
      fc.string().map((method) => ({ jsonrpc: '2.0', method })),
    ),
  },
  {
    weight: 2,
    arbitrary: fc
      .tuple(
        fc.oneof(
          fc.uuid().map((uuid) => `${uuid}.0`),
          id,
        ),
        fc.oneof(jsonValue, fc.constant({ action: 'accept' })),
      )
      .map(([answerId, result]) => ({ jsonrpc: '2.0', id: answerId, result })),
  },
)

function isNotification(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !('id' in value && 'method' in value)
}

function headers(context: FuzzContext, method: unknown): fc.Arbitrary<Record<string, string>> {
  return fc
    .record({
      sid: session(context),
      version: versionHeader,
      withMethod: fc.boolean(),
      origin: fc.oneof({ weight: 9, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: headerText }),
    })
    .map(({ sid, version, withMethod, origin }) => {
      const out: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }
      if (sid !== undefined) out['mcp-session-id'] = sid
      if (version !== undefined) out['mcp-protocol-version'] = version
      if (withMethod && typeof method === 'string') out['mcp-method'] = method
      if (origin !== undefined) out.origin = origin
      return out
    })
}

function single(context: FuzzContext): fc.Arbitrary<FuzzCase> {
  return message.chain((body) =>
    headers(context, body.method).map((given) => ({
      method: 'POST',
      headers: given,
      body: JSON.stringify(body),
      notification: isNotification(body),
    })),
  )
}

/** 2025-03-26 batches: any mix, sent with that revision's session or no session at all. */
function batch(context: FuzzContext): fc.Arbitrary<FuzzCase> {
  const old = context.sessions.filter((known) => known.version === '2025-03-26').map((known) => known.id)
  const sid = old.length ? fc.option(fc.constantFrom(...old), { nil: undefined }) : fc.constant(undefined)
  return fc.tuple(fc.array(message, { maxLength: 4 }), sid).map(([items, given]) => ({
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(given ? { 'mcp-session-id': given } : {}),
    },
    body: JSON.stringify(items),
    notification: items.length > 0 && items.every(isNotification),
  }))
}

export const era2025: Era = {
  name: '2025 (legacy lane)',
  cases: (context) => fc.oneof({ weight: 6, arbitrary: single(context) }, { weight: 1, arbitrary: batch(context) }),
}
