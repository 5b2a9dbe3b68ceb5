import { describe, expect, it } from 'vitest'
import { ERROR_KINDS, isMcpError, McpError } from '../../packages/mcp-edge/src/protocol/errors.ts'
import type { ErrorKind } from '../../packages/mcp-edge/src/protocol/errors.ts'

describe('the error table', () => {
  it('gives each kind its JSON-RPC code and HTTP status (spec §2.3, §3.4, §4)', () => {
    const table = Object.fromEntries(Object.entries(ERROR_KINDS).map(([kind, entry]) => [kind, [entry.code, entry.status]]))
    expect(table).toEqual({
      parseError: [-32700, 400],
      invalidRequest: [-32600, 400],
      methodNotFound: [-32601, 404],
      invalidMeta: [-32602, 400],
      invalidParams: [-32602, 200],
      internalError: [-32603, 200],
      headerMismatch: [-32020, 400],
      missingCapability: [-32021, 400],
      unsupportedVersion: [-32022, 400],
      sessionNotFound: [-32600, 404],
      inputTimeout: [-32603, 200],
      sessionsUnavailable: [-32603, 503],
      unknownAnswer: [-32600, 400],
      unauthorized: [-32600, 401],
      forbidden: [-32600, 403],
      authUnavailable: [-32603, 503],
      unavailable: [-32603, 503],
      insufficientScope: [-32600, 403],
      tooManyRequests: [-32600, 429],
      methodNotAllowed: [-32600, 405],
      notAcceptable: [-32600, 406],
      payloadTooLarge: [-32600, 413],
      misconfigured: [-32603, 500],
      unsupportedMediaType: [-32600, 415],
    })
  })

  it('emits only standard JSON-RPC codes and the three the spec defines in -32020..-32099', () => {
    // spec §4: "MUST NOT emit any code from this sub-range that is not defined by this specification";
    // -32002 and -32042 are retired and MUST NOT be emitted.
    const allowed = new Set([-32700, -32600, -32601, -32602, -32603, -32020, -32021, -32022])
    for (const entry of Object.values(ERROR_KINDS)) expect(allowed.has(entry.code)).toBe(true)
  })

  it('has the default messages clients see', () => {
    expect(ERROR_KINDS.parseError.message).toBe('Parse error: Invalid JSON')
    expect(ERROR_KINDS.methodNotFound.message).toBe('Method not found')
    expect(ERROR_KINDS.internalError.message).toBe('Internal error')
    expect(ERROR_KINDS.unsupportedVersion.message).toBe('Unsupported protocol version')
  })
})

describe('McpError', () => {
  it('takes code, status and default message from its kind', () => {
    for (const kind of Object.keys(ERROR_KINDS) as ErrorKind[]) {
      const error = new McpError(kind)
      expect(error.kind).toBe(kind)
      expect(error.code).toBe(ERROR_KINDS[kind].code)
      expect(error.status).toBe(ERROR_KINDS[kind].status)
      expect(error.message).toBe(ERROR_KINDS[kind].message)
      expect(error.data).toBeUndefined()
    }
  })

  it('is an Error named McpError and recognised by isMcpError', () => {
    const error = new McpError('headerMismatch', 'Header mismatch: x')
    expect(error).toBeInstanceOf(Error)
    expect(error.name).toBe('McpError')
    expect(isMcpError(error)).toBe(true)
    expect(isMcpError(new Error('x'))).toBe(false)
    expect(isMcpError({ code: -32602, message: 'x' })).toBe(false)
  })

  it('serialises to the error member of a JSON-RPC response, with data only when given', () => {
    expect(new McpError('methodNotFound', 'Method not found: foo/bar').toJSON()).toEqual({
      code: -32601,
      message: 'Method not found: foo/bar',
    })
    expect(JSON.stringify(new McpError('internalError'))).toBe('{"code":-32603,"message":"Internal error"}')
    const data = { supported: ['2026-07-28'], requested: '1900-01-01' }
    const error = new McpError('unsupportedVersion', undefined, data)
    expect(error.toJSON()).toEqual({ code: -32022, message: 'Unsupported protocol version', data })
    expect(JSON.parse(JSON.stringify({ error }))).toEqual({
      error: { code: -32022, message: 'Unsupported protocol version', data },
    })
  })

  it('keeps falsy data such as null or 0', () => {
    expect(new McpError('invalidParams', 'x', null).toJSON()).toEqual({ code: -32602, message: 'x', data: null })
    expect(new McpError('invalidParams', 'x', 0).toJSON()).toEqual({ code: -32602, message: 'x', data: 0 })
  })
})
