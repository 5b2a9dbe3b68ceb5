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

  // cloudflare/mcp-server-cloudflare's grants: a user token's props name the user, an account
  // token's the account. Before, the account token's named no one (500 without the option).
  it("is named by an account token's account, after anything that names a person", () => {
    const account = { id: 'acc1', name: 'Acme' }
    expect(principalFromProps({ type: 'account_token', accessToken: 't', account })).toEqual({ subject: 'account:acc1' })
    expect(principalFromProps({ type: 'user_token', accessToken: 't', user: { id: 'u1', email: 'ada@example.com' } })).toEqual({
      subject: 'ada@example.com',
    })
    expect(principalFromProps({ account, user: { id: 'u1' } })).toEqual({ subject: 'u1' })
    expect(principalFromProps({ account, claims: { sub: 'auth0|7' } })).toEqual({ subject: 'auth0|7' })
    expect(principalFromProps({ account: { name: 'Acme' } })).toBeUndefined()
  })

  it('is named by nothing in props of a bearer token alone, unless the principal option names it', () => {
    expect(principalFromProps({ bearerToken: 'opaque' })).toBeUndefined()
    const principal = (props: Record<string, unknown>) => ({ subject: String(props.userEmail) })
    expect(principalFromProps({ bearerToken: 'opaque', userEmail: 'ada@example.com' }, principal)).toEqual({
      subject: 'ada@example.com',
    })
  })
})
