import { SELF } from 'cloudflare:test'
import { describe, expect, it } from 'vitest'
import { rpc } from '../support/mcp.ts'

const URL = 'http://127.0.0.1/mcp'

describe('fixture inside workerd', () => {
  it('answers server/discover', async () => {
    const { status, message } = await rpc((request) => SELF.fetch(request), URL, 'server/discover')
    expect(status).toBe(200)
    expect(message.result?.resultType).toBe('complete')
  })
})
