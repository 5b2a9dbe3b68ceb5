import { describe, expect, it } from 'vitest'
import { decodeHeaderValue, validateParamHeaders, validateStandardHeaders } from '../../packages/mcp-edge/src/http/headers.ts'
import type { JsonRpcRequest } from '../../packages/mcp-edge/src/protocol/jsonrpc.ts'
import type { RequestMeta } from '../../packages/mcp-edge/src/protocol/types.ts'
import type { HeaderParam } from '../../packages/mcp-edge/src/protocol/header-values.ts'
import { caught } from './support.ts'

const sentinel = (value: string) => `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`

describe('decodeHeaderValue', () => {
  it('passes plain visible ASCII through', () => {
    expect(decodeHeaderValue('tools/call')).toBe('tools/call')
    expect(decodeHeaderValue('a b c')).toBe('a b c')
    expect(decodeHeaderValue('')).toBe('')
  })

  it('trims surrounding whitespace', () => {
    expect(decodeHeaderValue('  get_weather \t')).toBe('get_weather')
    expect(decodeHeaderValue(' =?base64?SGVsbG8=?= ')).toBe('Hello')
  })

  it('decodes the base64 sentinel', () => {
    expect(decodeHeaderValue('=?base64?SGVsbG8=?=')).toBe('Hello')
    expect(decodeHeaderValue(sentinel('Grüße, 世界'))).toBe('Grüße, 世界')
    expect(decodeHeaderValue(sentinel(' padded '))).toBe(' padded ')
    expect(decodeHeaderValue('=?base64??=')).toBe('')
  })

  it('decodes one level only: a value that looks like the sentinel arrives encoded', () => {
    expect(decodeHeaderValue(sentinel('=?base64?SGVsbG8=?='))).toBe('=?base64?SGVsbG8=?=')
  })

  it('refuses a sentinel without padding, with bad characters or with non-canonical bits', () => {
    expect(decodeHeaderValue('=?base64?SGVsbG8?=')).toBeUndefined()
    expect(decodeHeaderValue('=?base64?SGVs*G8=?=')).toBeUndefined()
    expect(decodeHeaderValue('=?base64?SGVs-G8=?=')).toBeUndefined()
    expect(decodeHeaderValue('=?base64? SGVsbG8=?=')).toBeUndefined()
    expect(decodeHeaderValue('=?base64?SGVsbG9=?=')).toBeUndefined()
  })

  it('refuses a sentinel whose bytes are not UTF-8', () => {
    expect(decodeHeaderValue('=?base64?/w==?=')).toBeUndefined()
    expect(decodeHeaderValue(`=?base64?${Buffer.from([0xc3, 0x28]).toString('base64')}?=`)).toBeUndefined()
  })

  it('refuses a plain value with non-ASCII or control characters', () => {
    expect(decodeHeaderValue('héllo')).toBeUndefined()
    expect(decodeHeaderValue('a\u0001b')).toBeUndefined()
    expect(decodeHeaderValue('a\u007fb')).toBeUndefined()
    expect(decodeHeaderValue('tab\tinside')).toBeUndefined()
  })
})

const PROTOCOL = '2026-07-28'
const meta = (protocolVersion = PROTOCOL): RequestMeta => ({ protocolVersion, clientCapabilities: {}, raw: {} })
const request = (method: string, params: Record<string, unknown> = {}): JsonRpcRequest => ({
  jsonrpc: '2.0',
  id: 1,
  method,
  params,
})

function headersFor(method: string, extra: Record<string, string> = {}): Headers {
  return new Headers({ 'mcp-protocol-version': PROTOCOL, 'mcp-method': method, ...extra })
}

function expectMismatch(fn: () => unknown, message: string): void {
  const error = caught(fn)
  expect(error.kind).toBe('headerMismatch')
  expect(error.code).toBe(-32020)
  expect(error.status).toBe(400)
  expect(error.message).toBe(message)
}

describe('validateStandardHeaders', () => {
  it('accepts headers that mirror the body', () => {
    expect(() => validateStandardHeaders(headersFor('tools/list'), request('tools/list'), meta())).not.toThrow()
    const call = request('tools/call', { name: 'get_weather' })
    expect(() => validateStandardHeaders(headersFor('tools/call', { 'mcp-name': 'get_weather' }), call, meta())).not.toThrow()
  })

  it('matches header names case-insensitively', () => {
    const headers = new Headers({ 'MCP-PROTOCOL-VERSION': PROTOCOL, 'Mcp-Method': 'tools/call', 'MCP-NAME': 'x' })
    expect(() => validateStandardHeaders(headers, request('tools/call', { name: 'x' }), meta())).not.toThrow()
  })

  it('requires MCP-Protocol-Version and that it equals the body version', () => {
    const headers = new Headers({ 'mcp-method': 'tools/list' })
    expectMismatch(
      () => validateStandardHeaders(headers, request('tools/list'), meta()),
      'Header mismatch: missing MCP-Protocol-Version header',
    )
    expectMismatch(
      () => validateStandardHeaders(headersFor('tools/list'), request('tools/list'), meta('v999.0.0')),
      "Header mismatch: MCP-Protocol-Version header value '2026-07-28' does not match body value 'v999.0.0'",
    )
    expectMismatch(
      () =>
        validateStandardHeaders(
          headersFor('tools/list', { 'mcp-protocol-version': '=?base64?MjA?=' }),
          request('tools/list'),
          meta(),
        ),
      'Header mismatch: MCP-Protocol-Version header value is not valid',
    )
  })

  it('requires Mcp-Method and compares it case-sensitively', () => {
    expectMismatch(
      () => validateStandardHeaders(new Headers({ 'mcp-protocol-version': PROTOCOL }), request('tools/list'), meta()),
      'Header mismatch: missing Mcp-Method header',
    )
    expectMismatch(
      () => validateStandardHeaders(headersFor('Tools/List'), request('tools/list'), meta()),
      "Header mismatch: Mcp-Method header value 'Tools/List' does not match body value 'tools/list'",
    )
  })

  it('requires Mcp-Name for every method that names a target', () => {
    const cases = [
      ['tools/call', { name: 'get_weather' }, 'get_weather'],
      ['prompts/get', { name: 'greeting' }, 'greeting'],
      ['resources/read', { uri: 'file:///a.txt' }, 'file:///a.txt'],
      ['tasks/get', { taskId: 'task-1' }, 'task-1'],
      ['tasks/update', { taskId: 'task-1' }, 'task-1'],
      ['tasks/cancel', { taskId: 'task-1' }, 'task-1'],
    ] as const
    for (const [method, params, name] of cases) {
      expectMismatch(
        () => validateStandardHeaders(headersFor(method), request(method, params), meta()),
        'Header mismatch: missing Mcp-Name header',
      )
      expectMismatch(
        () => validateStandardHeaders(headersFor(method, { 'mcp-name': `${name}x` }), request(method, params), meta()),
        `Header mismatch: Mcp-Name header value '${name}x' does not match body value '${name}'`,
      )
      expect(() =>
        validateStandardHeaders(headersFor(method, { 'mcp-name': name }), request(method, params), meta()),
      ).not.toThrow()
    }
  })

  it('compares Mcp-Name case-sensitively', () => {
    expectMismatch(
      () =>
        validateStandardHeaders(
          headersFor('tools/call', { 'mcp-name': 'Get_Weather' }),
          request('tools/call', { name: 'get_weather' }),
          meta(),
        ),
      "Header mismatch: Mcp-Name header value 'Get_Weather' does not match body value 'get_weather'",
    )
  })

  it('accepts a sentinel-encoded Mcp-Name and refuses a non-ASCII plain one', () => {
    const call = request('tools/call', { name: 'météo' })
    expect(() => validateStandardHeaders(headersFor('tools/call', { 'mcp-name': sentinel('météo') }), call, meta())).not.toThrow()
    expectMismatch(
      () => validateStandardHeaders(headersFor('tools/call', { 'mcp-name': 'météo' }), call, meta()),
      'Header mismatch: Mcp-Name header value is not valid',
    )
  })

  it('does not ask for Mcp-Name on methods without a target, nor when the body lacks the field', () => {
    expect(() =>
      validateStandardHeaders(headersFor('tools/list', { 'mcp-name': 'anything' }), request('tools/list'), meta()),
    ).not.toThrow()
    // The method itself answers a missing name with -32602.
    expect(() => validateStandardHeaders(headersFor('tools/call'), request('tools/call', { name: 42 }), meta())).not.toThrow()
  })
})

const PARAMS: HeaderParam[] = [
  { name: 'Region', path: ['region'], type: 'string' },
  { name: 'Count', path: ['count'], type: 'integer' },
  { name: 'Dry-Run', path: ['dryRun'], type: 'boolean' },
  { name: 'Tenant', path: ['target', 'tenant'], type: 'string' },
]

const paramHeaders = (values: Record<string, string>) =>
  new Headers(Object.fromEntries(Object.entries(values).map(([name, value]) => [`Mcp-Param-${name}`, value])))

describe('validateParamHeaders', () => {
  const args = { region: 'us-west1', count: 42, dryRun: true, target: { tenant: 'acme' } }
  const all = { Region: 'us-west1', Count: '42', 'Dry-Run': 'true', Tenant: 'acme' }

  it('accepts headers that mirror every annotated argument, nested ones included', () => {
    expect(() => validateParamHeaders(paramHeaders(all), PARAMS, args)).not.toThrow()
  })

  it('matches the header name case-insensitively', () => {
    const headers = new Headers({
      'mcp-param-region': 'us-west1',
      'MCP-PARAM-COUNT': '42',
      'mcp-param-dry-run': 'true',
      'mcp-param-tenant': 'acme',
    })
    expect(() => validateParamHeaders(headers, PARAMS, args)).not.toThrow()
  })

  it('compares strings exactly', () => {
    expectMismatch(
      () => validateParamHeaders(paramHeaders({ ...all, Region: 'US-WEST1' }), PARAMS, args),
      `Header mismatch: Mcp-Param-Region header value 'US-WEST1' does not match body value "us-west1"`,
    )
  })

  it('compares integers numerically, in decimal only', () => {
    expect(() => validateParamHeaders(paramHeaders({ ...all, Count: '042' }), PARAMS, args)).not.toThrow()
    expect(() => validateParamHeaders(paramHeaders({ Count: '-7' }), PARAMS, { count: -7 })).not.toThrow()
    for (const bad of ['43', '4.2e1', '42.0', '0x2a', '+42']) {
      expectMismatch(
        () => validateParamHeaders(paramHeaders({ ...all, Count: bad }), PARAMS, args),
        `Header mismatch: Mcp-Param-Count header value '${bad}' does not match body value 42`,
      )
    }
    // A string in the body is not the integer the header claims.
    expectMismatch(
      () => validateParamHeaders(paramHeaders({ Count: '42' }), PARAMS, { count: '42' }),
      `Header mismatch: Mcp-Param-Count header value '42' does not match body value "42"`,
    )
  })

  it('refuses an object where the header claims a value, showing it as JSON (one that cannot become a string included)', () => {
    expectMismatch(
      () => validateParamHeaders(paramHeaders({ ...all, Region: 'x' }), PARAMS, { ...args, region: { toString: 1 } }),
      `Header mismatch: Mcp-Param-Region header value 'x' does not match body value {"toString":1}`,
    )
    expectMismatch(
      () => validateParamHeaders(paramHeaders({ ...all, Count: '1' }), PARAMS, { ...args, count: [1] }),
      "Header mismatch: Mcp-Param-Count header value '1' does not match body value [1]",
    )
  })

  it('compares booleans as lower-case true/false', () => {
    expect(() => validateParamHeaders(paramHeaders({ 'Dry-Run': 'false' }), PARAMS, { dryRun: false })).not.toThrow()
    for (const bad of ['TRUE', 'True', '1', 'yes', 'false']) {
      expectMismatch(
        () => validateParamHeaders(paramHeaders({ ...all, 'Dry-Run': bad }), PARAMS, args),
        `Header mismatch: Mcp-Param-Dry-Run header value '${bad}' does not match body value true`,
      )
    }
    // A string in the body is not the boolean the header claims, nor is an object (one that cannot become a string included).
    expectMismatch(
      () => validateParamHeaders(paramHeaders({ 'Dry-Run': 'true' }), PARAMS, { dryRun: 'true' }),
      `Header mismatch: Mcp-Param-Dry-Run header value 'true' does not match body value "true"`,
    )
    expectMismatch(
      () => validateParamHeaders(paramHeaders({ 'Dry-Run': 'true' }), PARAMS, { dryRun: { toString: 1 } }),
      `Header mismatch: Mcp-Param-Dry-Run header value 'true' does not match body value {"toString":1}`,
    )
  })

  it('requires the header when the argument is present', () => {
    const { Region: _region, ...rest } = all
    expectMismatch(
      () => validateParamHeaders(paramHeaders(rest), PARAMS, args),
      'Header mismatch: missing Mcp-Param-Region header for argument region',
    )
    const { Tenant: _tenant, ...noTenant } = all
    expectMismatch(
      () => validateParamHeaders(paramHeaders(noTenant), PARAMS, args),
      'Header mismatch: missing Mcp-Param-Tenant header for argument target.tenant',
    )
  })

  it('expects no header for an absent or null argument, and refuses one that is sent', () => {
    expect(() => validateParamHeaders(new Headers(), PARAMS, {})).not.toThrow()
    expect(() => validateParamHeaders(new Headers(), PARAMS, undefined)).not.toThrow()
    expect(() => validateParamHeaders(new Headers(), PARAMS, { region: null, target: 'not an object' })).not.toThrow()
    expectMismatch(
      () => validateParamHeaders(paramHeaders({ Region: 'us-west1' }), PARAMS, { region: null }),
      'Header mismatch: Mcp-Param-Region header sent for an absent argument',
    )
    expectMismatch(
      () => validateParamHeaders(paramHeaders({ Tenant: 'acme' }), PARAMS, { target: {} }),
      'Header mismatch: Mcp-Param-Tenant header sent for an absent argument',
    )
  })

  it('refuses a header with invalid characters, and accepts the same value sentinel-encoded', () => {
    expectMismatch(
      () => validateParamHeaders(paramHeaders({ Region: 'zürich' }), PARAMS, { region: 'zürich' }),
      'Header mismatch: Mcp-Param-Region header value is not valid',
    )
    expectMismatch(
      () => validateParamHeaders(paramHeaders({ Region: 'a\u0001b' }), PARAMS, { region: 'a\u0001b' }),
      'Header mismatch: Mcp-Param-Region header value is not valid',
    )
    expect(() => validateParamHeaders(paramHeaders({ Region: sentinel('zürich') }), PARAMS, { region: 'zürich' })).not.toThrow()
    expect(() => validateParamHeaders(paramHeaders({ Region: sentinel(' lead') }), PARAMS, { region: ' lead' })).not.toThrow()
  })

  it('checks nothing for a tool without annotated parameters', () => {
    expect(() => validateParamHeaders(paramHeaders({ Region: 'x' }), [], { region: 'y' })).not.toThrow()
  })
})
