import { describe, expect, it } from 'vitest'
import { classifyMessage } from '../../src/protocol/jsonrpc.ts'

describe('classifyMessage', () => {
  it('tells a notification from a request', () => {
    expect(classifyMessage({ jsonrpc: '2.0', method: 'x' }).kind).toBe('notification')
    expect(classifyMessage({ jsonrpc: '2.0', id: 1, method: 'x' }).kind).toBe('request')
  })
})
