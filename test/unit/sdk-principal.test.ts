/**
 * Which props of an OAuth grant name the caller of an SDK-style server (mcp-edge/sdk's
 * principal.ts), as the props of Cloudflare's own demos are written: `{ userEmail }` in
 * ai/demos/remote-mcp-server names the person; `{ bearerToken }` of a bearer-auth demo names no
 * one, and then serve()'s `principal` option says who calls (docs/migrate.md, "From McpAgent").
 * In Node.
 */
import { describe, expect, it } from 'vitest'
import { principalFromProps } from '../../packages/mcp-edge/src/sdk/principal.ts'

describe('the principal of a grant’s props', () => {
  it('is named by userEmail, as in Cloudflare’s remote-mcp-server demo', () => {
    expect(principalFromProps({ userEmail: 'ada@example.com' })).toEqual({ subject: 'ada@example.com' })
    // The fields before it keep their precedence.
    expect(principalFromProps({ userEmail: 'ada@example.com', email: 'a@example.com' })).toEqual({ subject: 'a@example.com' })
    expect(principalFromProps({ userEmail: 'ada@example.com', login: 'ada' })).toEqual({ subject: 'ada' })
    // Last of all: props that named someone before userEmail was read name the same one now.
    expect(principalFromProps({ userEmail: 'ada@example.com', id: '42' })).toEqual({ subject: '42' })
    expect(principalFromProps({ userEmail: 'ada@example.com', username: 'ada' })).toEqual({ subject: 'ada' })
  })

  it('is named by nothing in props of a bearer token alone, unless the principal option names it', () => {
    expect(principalFromProps({ bearerToken: 'opaque' })).toBeUndefined()
    const principal = (props: Record<string, unknown>) => ({ subject: String(props.userEmail) })
    expect(principalFromProps({ bearerToken: 'opaque', userEmail: 'ada@example.com' }, principal)).toEqual({
      subject: 'ada@example.com',
    })
  })
})
