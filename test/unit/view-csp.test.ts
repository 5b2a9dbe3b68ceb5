/**
 * The playground's view policy (apps/demo/playground/src/csp.ts): the MCP Apps defaults when a
 * view declares nothing, widened only by declared origins, and never by anything that is not an
 * origin (a directive smuggled into a domain, a keyword, a scheme alone); and the policy placed
 * before anything of the view's document, whatever shape that document has. The browser test
 * (test/http/playground-view.test.ts) shows Chromium enforcing it.
 */
import { describe, expect, it } from 'vitest'
import { viewPolicy, withPolicy } from '../../apps/demo/playground/src/csp.ts'

const directives = (policy: string) => Object.fromEntries(policy.split('; ').map((part) => [part.split(' ')[0], part]))

describe('viewPolicy', () => {
  it('allows nothing beyond the document itself when the view declares nothing', () => {
    expect(viewPolicy()).toBe(
      [
        "default-src 'none'",
        "script-src 'self' 'unsafe-inline'",
        "style-src 'self' 'unsafe-inline'",
        "img-src 'self' data:",
        "font-src 'self'",
        "media-src 'self' data:",
        "connect-src 'none'",
        "frame-src 'none'",
        "base-uri 'self'",
        "form-action 'none'",
        "object-src 'none'",
      ].join('; '),
    )
  })

  it('widens each directive by the origins declared for it, and only that one', () => {
    const policy = directives(
      viewPolicy({
        connectDomains: ['https://api.example.com', 'wss://live.example.com'],
        resourceDomains: ['https://cdn.example.com'],
        frameDomains: ['https://www.youtube.com'],
        baseUriDomains: ['https://base.example.com'],
      }),
    )
    expect(policy['connect-src']).toBe('connect-src https://api.example.com wss://live.example.com')
    expect(policy['script-src']).toBe("script-src 'self' 'unsafe-inline' https://cdn.example.com")
    expect(policy['img-src']).toBe("img-src 'self' data: https://cdn.example.com")
    expect(policy['frame-src']).toBe('frame-src https://www.youtube.com')
    expect(policy['base-uri']).toBe('base-uri https://base.example.com')
    expect(policy['default-src']).toBe("default-src 'none'")
  })

  it('drops what is not an origin: a second directive, a keyword, a bare scheme, a wildcard alone', () => {
    const policy = viewPolicy({
      connectDomains: ["https://a.example; script-src 'unsafe-eval'", "'unsafe-eval'", 'https:', '*', 'javascript:alert(1)'],
    })
    expect(directives(policy)['connect-src']).toBe("connect-src 'none'")
    expect(policy).not.toContain('unsafe-eval')
  })

  it('puts the policy before anything of the view, whatever the view’s head looks like', () => {
    const policy = viewPolicy()
    const meta = `<!doctype html><meta http-equiv="Content-Security-Policy" content="${policy}">`
    for (const view of [
      '<!doctype html><html><head><title>v</title></head><body></body></html>',
      '<body><header>no head at all</header><script>fetch("https://x.example")</script></body>',
      '<script>alert(1)</script><head></head>',
      '<!-- <head> --><html><head></head></html>',
      'plain text',
    ]) {
      expect(withPolicy(view, policy)).toBe(`${meta}${view}`)
    }
  })

  it('escapes the policy for its attribute', () => {
    expect(withPolicy('', 'a "b" & c')).toBe(
      '<!doctype html><meta http-equiv="Content-Security-Policy" content="a &quot;b&quot; &amp; c">',
    )
  })
})
