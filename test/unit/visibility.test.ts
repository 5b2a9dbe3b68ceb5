/**
 * Per-caller visibility (`visible`, docs/catalogs.md) through `McpServer.handle`, in both eras:
 * what a caller may not see is absent from its lists (which are then private) and fails as an
 * unknown tool, prompt, resource or template would, byte for byte, without running anything.
 * Over HTTP and inside workerd: test/contract/catalog.ts.
 */
import { describe, expect, it, vi } from 'vitest'
import * as z from 'zod'
import { mayRead } from '../../packages/mcp-edge/src/server/methods/access.ts'
import { createMcpServer } from '../../packages/mcp-edge/src/server/server.ts'
import type { Principal, VisibilityContext } from '../../packages/mcp-edge/src/server/types.ts'
import { recordsNamed } from '../support/logs.ts'

const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] })
const admin = (ctx: VisibilityContext) => ctx.principal?.subject === 'admin'
const ADMIN: Principal = { subject: 'admin' }
const ALICE: Principal = { subject: 'alice' }
const meta = (protocolVersion = '2026-07-28') => ({ protocolVersion, clientCapabilities: {}, raw: {} })

function catalog() {
  const runs: string[] = []
  const server = createMcpServer({ name: 'visibility', version: '1.0.0' })
  server
    .tool('public_echo', { input: z.object({}) }, () => text('echo'))
    .tool(
      'admin_reset',
      { input: z.object({ region: z.string().meta({ 'x-mcp-header': 'Region' }) }), visible: admin },
      ({ region }) => {
        runs.push(region)
        return text('reset')
      },
    )
    .resource('notes://public', { name: 'public' }, (uri) => ({ contents: [{ uri, text: 'public' }] }))
    .resource('notes://admin', { name: 'admin', visible: admin }, (uri) => ({ contents: [{ uri, text: 'secret' }] }))
    .resourceTemplate(
      'audit://{day}',
      {
        name: 'audit',
        visible: admin,
        complete: { day: () => ['monday'] },
        list: () => {
          runs.push('listed')
          return [{ uri: 'audit://monday', name: 'monday' }]
        },
      },
      (uri) => ({ contents: [{ uri, text: 'audit' }] }),
    )
    .prompt('public_prompt', {}, () => ({ messages: [] }))
    .prompt('admin_prompt', { visible: admin, args: z.object({ topic: z.string() }) }, () => ({ messages: [] }))
  return { server, runs }
}

type Answer = {
  status: number
  message: { result?: Record<string, unknown>; error?: { code: number; message: string; data?: unknown } }
}

async function send(
  server: ReturnType<typeof catalog>['server'],
  method: string,
  params: Record<string, unknown>,
  principal?: Principal,
  version?: string,
): Promise<Answer> {
  const options = { env: {}, principal, cancel: { signal: new AbortController().signal } }
  return (await server.handle({ jsonrpc: '2.0', id: 1, method, params }, meta(version), options)) as Answer
}

const names = (answer: Answer, field: string, key = 'name') =>
  ((answer.message.result?.[field] ?? []) as Record<string, string>[]).map((item) => item[key])

describe('visible: lists', () => {
  it('shows each caller only what it may see, and marks those lists private', async () => {
    const { server } = catalog()
    for (const [who, tools, resources, templates, prompts] of [
      [
        ADMIN,
        ['public_echo', 'admin_reset'],
        ['notes://public', 'notes://admin', 'audit://monday'],
        ['audit://{day}'],
        ['public_prompt', 'admin_prompt'],
      ],
      [ALICE, ['public_echo'], ['notes://public'], [], ['public_prompt']],
      [undefined, ['public_echo'], ['notes://public'], [], ['public_prompt']],
    ] as const) {
      const listed = await send(server, 'tools/list', {}, who)
      expect(names(listed, 'tools')).toEqual(tools)
      expect(listed.message.result?.cacheScope).toBe('private')
      expect(names(await send(server, 'resources/list', {}, who), 'resources', 'uri')).toEqual(resources)
      expect(names(await send(server, 'resources/templates/list', {}, who), 'resourceTemplates', 'uriTemplate')).toEqual(
        templates,
      )
      expect(names(await send(server, 'prompts/list', {}, who), 'prompts')).toEqual(prompts)
    }
  })

  it('calls no hidden template’s list callback, and keeps a list without predicates public', async () => {
    const { server, runs } = catalog()
    await send(server, 'resources/list', {}, ALICE)
    expect(runs).toEqual([])
    const plain = createMcpServer({ name: 'plain', version: '1.0.0' }).tool('a', { input: z.object({}) }, () => text('a'))
    expect((await send(plain as never, 'tools/list', {})).message.result?.cacheScope).toBe('public')
  })

  it('hides an entry whose predicate throws, and logs it', async () => {
    const server = createMcpServer({ name: 'throws', version: '1.0.0' })
    server.tool(
      'fragile',
      {
        input: z.object({}),
        visible: () => {
          throw new Error('no roles table')
        },
      },
      () => text('ran'),
    )
    server.tool('sturdy', { input: z.object({}) }, () => text('ran'))
    const spy = vi.spyOn(console, 'error').mockImplementation(() => {})
    try {
      expect(names(await send(server as never, 'tools/list', {}, ADMIN), 'tools')).toEqual(['sturdy'])
      expect(recordsNamed(spy, 'visible predicate threw: the entry is hidden')).toHaveLength(1)
    } finally {
      spy.mockRestore()
    }
  })

  it('hands the predicate the principal, the env and the request _meta', async () => {
    const seen: VisibilityContext[] = []
    const server = createMcpServer({ name: 'ctx', version: '1.0.0' })
    server.tool('probe', { input: z.object({}), visible: (ctx) => seen.push(ctx) > 0 }, () => text('ran'))
    await send(server as never, 'tools/list', {}, ALICE, '2025-06-18')
    expect(seen[0]).toMatchObject({ principal: ALICE, env: {}, meta: { protocolVersion: '2025-06-18' } })
  })
})

describe('visible: a hidden entry fails exactly as an unknown one, in both eras', () => {
  for (const version of ['2026-07-28', '2025-11-25', '2025-03-26']) {
    it(`tools/call, prompts/get, resources/read, completion/complete (${version})`, async () => {
      const { server, runs } = catalog()
      const pairs: [string, Record<string, unknown>, Record<string, unknown>][] = [
        ['tools/call', { name: 'admin_reset', arguments: { region: 'eu' } }, { name: 'admin_reset', arguments: {} }],
        ['prompts/get', { name: 'admin_prompt', arguments: { topic: 'x' } }, { name: 'admin_prompt' }],
        ['resources/read', { uri: 'notes://admin' }, { uri: 'notes://admin' }],
        ['resources/read', { uri: 'audit://monday' }, { uri: 'audit://monday' }],
        [
          'completion/complete',
          { ref: { type: 'ref/prompt', name: 'admin_prompt' }, argument: { name: 'topic', value: '' } },
          {},
        ],
        [
          'completion/complete',
          { ref: { type: 'ref/resource', uri: 'audit://{day}' }, argument: { name: 'day', value: '' } },
          {},
        ],
        ['completion/complete', { ref: { type: 'ref/resource', uri: 'notes://admin' }, argument: { name: 'x', value: '' } }, {}],
      ]
      const bare = createMcpServer({ name: 'visibility', version: '1.0.0' })
      bare.tool('x', { input: z.object({}) }, () => text('x')).prompt('y', {}, () => ({ messages: [] }))
      bare.resource('z://z', { name: 'z' }, (uri) => ({ contents: [{ uri, text: 'z' }] }))
      for (const [method, params] of pairs) {
        const hidden = await send(server, method, params, ALICE, version)
        const unknown = await send(bare as never, method, params, ALICE, version)
        expect(hidden.message.error).toBeDefined()
        expect([method, hidden]).toEqual([method, unknown])
        // And the admin is served.
        expect((await send(server, method, params, ADMIN, version)).message.error).toBeUndefined()
      }
      expect(runs).toEqual(['eu'])
    })
  }

  it('mirrors no Mcp-Param-* header for a hidden tool, as for an unknown one', () => {
    const { server } = catalog()
    expect(server.headerParams('admin_reset', { principal: ALICE, env: {}, meta: meta() })).toEqual([])
    expect(server.headerParams('admin_reset', { principal: ADMIN, env: {}, meta: meta() })).toHaveLength(1)
  })

  it('announces no update of a resource only hidden entries serve; an unserved URI is left alone', () => {
    const { server } = catalog()
    const as = (principal: Principal) => ({ principal, env: {}, meta: meta() })
    expect(mayRead(server, as(ALICE), 'notes://admin')).toBe(false)
    expect(mayRead(server, as(ALICE), 'audit://monday')).toBe(false)
    expect(mayRead(server, as(ADMIN), 'audit://monday')).toBe(true)
    expect(mayRead(server, as(ALICE), 'notes://public')).toBe(true)
    expect(mayRead(server, as(ALICE), 'elsewhere://x')).toBe(true)
  })
})
