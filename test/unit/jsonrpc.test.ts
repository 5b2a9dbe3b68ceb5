import { describe, expect, it } from 'vitest'
import {
  classifyMessage,
  errorResponse,
  notification,
  readableId,
  resultResponse,
} from '../../packages/mcp-edge/src/protocol/jsonrpc.ts'
import { caught } from './support.ts'

function expectInvalidRequest(value: unknown, message: string): void {
  const error = caught(() => classifyMessage(value))
  expect(error.kind).toBe('invalidRequest')
  expect(error.code).toBe(-32600)
  expect(error.status).toBe(400)
  expect(error.message).toBe(message)
}

describe('classifyMessage', () => {
  it('tells a notification from a request and returns the message itself', () => {
    const note = { jsonrpc: '2.0', method: 'notifications/initialized' }
    const request = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: {} } }
    expect(classifyMessage(note)).toEqual({ kind: 'notification', message: note })
    expect(classifyMessage(request)).toEqual({ kind: 'request', message: request })
    expect(classifyMessage(request).message).toBe(request)
  })

  it('accepts string ids, including the empty string, and integer ids including 0 and negatives', () => {
    for (const id of ['abc', '', 0, -1, 42, Number.MAX_SAFE_INTEGER]) {
      expect(classifyMessage({ jsonrpc: '2.0', id, method: 'x' }).kind).toBe('request')
    }
  })

  it('rejects batches, empty or not', () => {
    expectInvalidRequest([], 'Invalid Request: batches are not supported')
    expectInvalidRequest([{ jsonrpc: '2.0', id: 1, method: 'tools/list' }], 'Invalid Request: batches are not supported')
  })

  it('rejects values that are not JSON-RPC 2.0 objects', () => {
    for (const value of [
      null,
      'x',
      1,
      true,
      { id: 1, method: 'x' },
      { jsonrpc: '1.0', id: 1, method: 'x' },
      { jsonrpc: 2, method: 'x' },
    ]) {
      expectInvalidRequest(value, 'Invalid Request: expected a JSON-RPC 2.0 object')
    }
  })

  it('rejects responses sent by a client, even with a method', () => {
    expectInvalidRequest({ jsonrpc: '2.0', id: 1, result: {} }, 'Invalid Request: clients must not send responses')
    expectInvalidRequest(
      { jsonrpc: '2.0', id: 1, error: { code: 1, message: 'x' } },
      'Invalid Request: clients must not send responses',
    )
    expectInvalidRequest({ jsonrpc: '2.0', id: 1, method: 'x', result: null }, 'Invalid Request: clients must not send responses')
  })

  it('rejects a missing, empty or non-string method', () => {
    for (const method of [undefined, '', 7, null, ['tools/list']]) {
      expectInvalidRequest({ jsonrpc: '2.0', id: 1, method }, 'Invalid Request: method must be a non-empty string')
    }
  })

  it('rejects a null id and ids that are neither strings nor integers', () => {
    for (const id of [null, 1.5, Number.NaN, Number.POSITIVE_INFINITY, true, {}, [1]]) {
      expectInvalidRequest({ jsonrpc: '2.0', id, method: 'tools/list' }, 'Invalid Request: id must be a string or an integer')
    }
  })
})

describe('readableId', () => {
  it('reads a string or integer id from anything that failed validation', () => {
    expect(readableId({ id: 5 })).toBe(5)
    expect(readableId({ id: 'req-1', method: 7 })).toBe('req-1')
    expect(readableId({ jsonrpc: '1.0', id: 0 })).toBe(0)
  })

  it('gives nothing when no usable id is there', () => {
    expect(readableId({ id: null })).toBeUndefined()
    expect(readableId({ id: 1.5 })).toBeUndefined()
    expect(readableId({})).toBeUndefined()
    expect(readableId([{ id: 1 }])).toBeUndefined()
    expect(readableId('x')).toBeUndefined()
    expect(readableId(null)).toBeUndefined()
  })
})

describe('response builders', () => {
  it('build the two response shapes and a notification', () => {
    expect(resultResponse(3, { ok: true })).toEqual({ jsonrpc: '2.0', id: 3, result: { ok: true } })
    expect(errorResponse('a', { code: -32601, message: 'Method not found' })).toEqual({
      jsonrpc: '2.0',
      id: 'a',
      error: { code: -32601, message: 'Method not found' },
    })
    expect(notification('notifications/progress', { progress: 1 })).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/progress',
      params: { progress: 1 },
    })
  })

  it('leaves the id out of an error response when it could not be read', () => {
    const response = errorResponse(undefined, { code: -32700, message: 'Parse error: Invalid JSON' })
    expect('id' in response).toBe(false)
    expect(JSON.stringify(response)).toBe('{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error: Invalid JSON"}}')
  })
})
