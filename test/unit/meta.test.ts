import { describe, expect, it } from 'vitest'
import { LOG_LEVELS } from '../../packages/mcp-edge/src/protocol/constants.ts'
import { readLogLevel, readRequestMeta } from '../../packages/mcp-edge/src/protocol/meta.ts'
import { caught } from './support.ts'

const VERSION = 'io.modelcontextprotocol/protocolVersion'
const CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities'
const CLIENT_INFO = 'io.modelcontextprotocol/clientInfo'
const LOG_LEVEL = 'io.modelcontextprotocol/logLevel'

const valid = () => ({ [VERSION]: '2026-07-28', [CAPABILITIES]: {} })

function expectInvalidMeta(params: unknown, message: string): void {
  const error = caught(() => readRequestMeta(params))
  expect(error.kind).toBe('invalidMeta')
  expect(error.code).toBe(-32602)
  expect(error.status).toBe(400)
  expect(error.message).toBe(message)
}

describe('readRequestMeta', () => {
  it('reads the required fields and keeps the raw _meta', () => {
    const raw = { ...valid(), [CAPABILITIES]: { elicitation: {} }, 'example.com/trace': 'x' }
    const meta = readRequestMeta({ name: 'tool', _meta: raw })
    expect(meta).toEqual({ protocolVersion: '2026-07-28', clientCapabilities: { elicitation: {} }, raw })
    expect(meta.raw).toBe(raw)
  })

  it('serves a request without clientInfo (optional since PR #3002) and reads it when present', () => {
    expect(readRequestMeta({ _meta: valid() }).clientInfo).toBeUndefined()
    const info = { name: 'client', version: '1.0.0' }
    expect(readRequestMeta({ _meta: { ...valid(), [CLIENT_INFO]: info } }).clientInfo).toEqual(info)
    expect(readRequestMeta({ _meta: { ...valid(), [CLIENT_INFO]: 'client' } }).clientInfo).toBeUndefined()
  })

  it('reads string and finite numeric progress and partial-result tokens, and ignores other values', () => {
    const meta = readRequestMeta({ _meta: { ...valid(), progressToken: 'p-1', partialResultToken: 7 } })
    expect(meta.progressToken).toBe('p-1')
    expect(meta.partialResultToken).toBe(7)
    for (const token of [null, {}, Number.NaN, Number.POSITIVE_INFINITY, true]) {
      const ignored = readRequestMeta({ _meta: { ...valid(), progressToken: token, partialResultToken: token } })
      expect(ignored.progressToken).toBeUndefined()
      expect(ignored.partialResultToken).toBeUndefined()
    }
  })

  it('rejects a request without params', () => {
    for (const params of [undefined, null, 'x', 3, []]) {
      expectInvalidMeta(params, 'Invalid params: params with _meta is required')
    }
  })

  it('rejects params without an object _meta', () => {
    for (const _meta of [undefined, null, 'x', [], 1]) {
      expectInvalidMeta({ name: 'tool', _meta }, 'Invalid params: _meta is required')
    }
  })

  it('rejects a missing, empty or non-string protocol version', () => {
    for (const version of [undefined, '', 20260728, null]) {
      expectInvalidMeta(
        { _meta: { ...valid(), [VERSION]: version } },
        'Invalid params: _meta["io.modelcontextprotocol/protocolVersion"] is required',
      )
    }
  })

  it('rejects missing or non-object client capabilities', () => {
    for (const capabilities of [undefined, null, 'all', [], true]) {
      expectInvalidMeta(
        { _meta: { ...valid(), [CAPABILITIES]: capabilities } },
        'Invalid params: _meta["io.modelcontextprotocol/clientCapabilities"] must be an object',
      )
    }
  })

  it('checks the version before the capabilities', () => {
    expectInvalidMeta({ _meta: {} }, 'Invalid params: _meta["io.modelcontextprotocol/protocolVersion"] is required')
  })
})

describe('readLogLevel', () => {
  const withLevel = (level: unknown) => readRequestMeta({ _meta: { ...valid(), [LOG_LEVEL]: level } })

  it('is undefined when the request names no level', () => {
    expect(readLogLevel(readRequestMeta({ _meta: valid() }))).toBeUndefined()
  })

  it('accepts every RFC 5424 level name', () => {
    expect(LOG_LEVELS).toEqual(['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'])
    for (const level of LOG_LEVELS) expect(readLogLevel(withLevel(level))).toBe(level)
  })

  it('rejects unknown, differently cased or non-string levels with -32602', () => {
    for (const [level, shown] of [
      ['verbose', '"verbose"'],
      ['DEBUG', '"DEBUG"'],
      ['warn', '"warn"'],
      [3, '3'],
      [null, 'null'],
    ] as const) {
      const error = caught(() => readLogLevel(withLevel(level)))
      expect(error.kind).toBe('invalidParams')
      expect(error.code).toBe(-32602)
      expect(error.message).toBe(`Invalid params: unknown log level ${shown}`)
    }
  })
})
