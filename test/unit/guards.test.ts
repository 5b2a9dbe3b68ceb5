import { describe, expect, it } from 'vitest'
import { checkAccept, checkContentType, checkOrigin, isLoopbackHost } from '../../packages/mcp-edge/src/http/guards.ts'
import { isLocalRequest } from '../../packages/mcp-edge/src/http/auth.ts'
import type { McpError } from '../../packages/mcp-edge/src/protocol/errors.ts'
import { caught } from './support.ts'

function expectStatus(error: McpError, status: number, message: string): void {
  expect(error.code).toBe(-32600)
  expect(error.status).toBe(status)
  expect(error.message).toBe(message)
}

describe('checkOrigin: Origin', () => {
  it('lets requests without Origin through (non-browser clients)', () => {
    expect(() => checkOrigin(new Headers(), {})).not.toThrow()
  })

  it('allows loopback origins without configuration', () => {
    for (const origin of [
      'http://localhost:3000',
      'http://127.0.0.1',
      'https://127.0.0.1:8787',
      'http://[::1]:8080',
      'http://app.localhost',
    ]) {
      expect(() => checkOrigin(new Headers({ origin }), {})).not.toThrow()
    }
  })

  it('refuses any other origin with 403, including DNS-rebinding look-alikes', () => {
    for (const origin of [
      'https://evil.example',
      'http://localhost.evil.example',
      'http://127.0.0.1.evil.example',
      'null',
      'not a url',
    ]) {
      expectStatus(
        caught(() => checkOrigin(new Headers({ origin }), {})),
        403,
        `Forbidden: origin ${origin} is not allowed`,
      )
    }
  })

  it('allows listed origins exactly', () => {
    const options = { allowedOrigins: ['https://app.example.com'] }
    expect(() => checkOrigin(new Headers({ origin: 'https://app.example.com' }), options)).not.toThrow()
    expectStatus(
      caught(() => checkOrigin(new Headers({ origin: 'https://app.example.com:8443' }), options)),
      403,
      'Forbidden: origin https://app.example.com:8443 is not allowed',
    )
    expectStatus(
      caught(() => checkOrigin(new Headers({ origin: 'http://app.example.com' }), options)),
      403,
      'Forbidden: origin http://app.example.com is not allowed',
    )
  })

  it("allows every origin with '*'", () => {
    expect(() => checkOrigin(new Headers({ origin: 'https://evil.example' }), { allowedOrigins: ['*'] })).not.toThrow()
    expect(() => checkOrigin(new Headers({ origin: 'null' }), { allowedOrigins: ['*'] })).not.toThrow()
  })
})

describe('checkOrigin: Host allow-list', () => {
  it('accepts any host when no list is configured', () => {
    expect(() => checkOrigin(new Headers({ host: 'evil.example' }), {})).not.toThrow()
  })

  it('accepts listed hosts (any port, any case) and loopback names', () => {
    const options = { allowedHosts: ['api.example.com'] }
    for (const host of [
      'api.example.com',
      'api.example.com:443',
      'API.Example.com',
      'localhost:8787',
      '127.0.0.1',
      '[::1]:8787',
    ]) {
      expect(() => checkOrigin(new Headers({ host }), options)).not.toThrow()
    }
  })

  it('refuses other hosts and a missing Host with 403', () => {
    const options = { allowedHosts: ['api.example.com'] }
    expectStatus(
      caught(() => checkOrigin(new Headers({ host: 'evil.example' }), options)),
      403,
      'Forbidden: host evil.example is not allowed',
    )
    expectStatus(
      caught(() => checkOrigin(new Headers({ host: 'api.example.com.evil.example' }), options)),
      403,
      'Forbidden: host api.example.com.evil.example is not allowed',
    )
    expectStatus(
      caught(() => checkOrigin(new Headers(), options)),
      403,
      'Forbidden: host (none) is not allowed',
    )
  })

  it('checks Origin and Host independently', () => {
    const headers = new Headers({ origin: 'http://localhost:3000', host: 'evil.example' })
    expectStatus(
      caught(() => checkOrigin(headers, { allowedHosts: [] })),
      403,
      'Forbidden: host evil.example is not allowed',
    )
  })
})

describe('isLoopbackHost', () => {
  it('knows the loopback names', () => {
    expect(isLoopbackHost('localhost')).toBe(true)
    expect(isLoopbackHost('LOCALHOST:80')).toBe(true)
    expect(isLoopbackHost('[::1]')).toBe(true)
    expect(isLoopbackHost('dev.localhost:5173')).toBe(true)
    expect(isLoopbackHost('127.0.0.2')).toBe(false)
    expect(isLoopbackHost('localhost.example')).toBe(false)
  })

  it('answers each host on its own when asked again, in turn (it keeps the last answer)', () => {
    const hosts = ['127.0.0.1:8787', 'example.com', '127.0.0.1:8787', '127.0.0.1:8787', 'evil.localhost.com', 'a.localhost']
    for (const round of [1, 2]) {
      expect(
        hosts.map((host) => isLoopbackHost(host)),
        `round ${round}`,
      ).toEqual([true, false, true, true, false, true])
    }
  })
})

describe('isLocalRequest', () => {
  it('judges the Host header on its own when it is not spelled as the URL host', () => {
    const local = (host: string) => isLocalRequest(new Request('http://127.0.0.1:8787/mcp', { headers: { host } }))
    expect(local('127.0.0.1:8787')).toBe(true)
    expect(local('LOCALHOST:8787')).toBe(true)
    expect(local('tunnel.example.com')).toBe(false)
    expect(local('127.0.0.1:8787.example.com')).toBe(false)
  })
})

describe('checkAccept', () => {
  it('tolerates a missing Accept header', () => {
    expect(() => checkAccept(new Headers())).not.toThrow()
  })

  it('accepts headers that cover both JSON and SSE', () => {
    for (const accept of [
      'application/json, text/event-stream',
      'text/event-stream,application/json',
      'application/json;q=0.9, text/event-stream;q=1',
      '*/*',
      'application/*, text/*',
      'Application/JSON, Text/Event-Stream',
    ]) {
      expect(() => checkAccept(new Headers({ accept }))).not.toThrow()
    }
  })

  it('refuses with 406 when either type is missing', () => {
    for (const accept of [
      'application/json',
      'text/event-stream',
      'text/html',
      'application/jsonx, text/event-stream',
      'application/json, text/event-stream;q=0',
      '*/*;q=0.0',
    ]) {
      expectStatus(
        caught(() => checkAccept(new Headers({ accept }))),
        406,
        'Not Acceptable: Accept must list application/json and text/event-stream',
      )
    }
  })
})

describe('checkContentType', () => {
  it('accepts application/json with parameters and in any case', () => {
    for (const type of ['application/json', 'application/json; charset=utf-8', 'Application/JSON']) {
      expect(() => checkContentType(new Headers({ 'content-type': type }))).not.toThrow()
    }
  })

  it('refuses anything else with 415', () => {
    expectStatus(
      caught(() => checkContentType(new Headers())),
      415,
      'Unsupported Media Type: use application/json',
    )
    for (const type of ['text/plain', 'application/jsonx', 'application/x-www-form-urlencoded', 'multipart/form-data']) {
      expectStatus(
        caught(() => checkContentType(new Headers({ 'content-type': type }))),
        415,
        'Unsupported Media Type: use application/json',
      )
    }
  })
})
