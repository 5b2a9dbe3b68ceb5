import { describe, expect, inject, it } from 'vitest'
import { rpc } from '../support/mcp.ts'

describe('wrangler dev', () => {
  it('serves the fixture and the template', async () => {
    for (const url of [inject('fixtureUrl'), inject('templateUrl')]) {
      const { status, message } = await rpc(fetch, url, 'server/discover')
      expect(status).toBe(200)
      expect(message.result?.supportedVersions).toEqual(['2026-07-28'])
    }
  })
})
