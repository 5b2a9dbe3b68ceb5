import { describe, expect, it } from 'vitest'
import { createMcpServer } from '../../packages/mcp-edge/src/server/server.ts'
import { compileUriTemplate } from '../../packages/mcp-edge/src/server/uri-template.ts'
import { sendAs } from './support.ts'

describe('compileUriTemplate', () => {
  it('lists the variables of every expression', () => {
    expect(compileUriTemplate('file:///{+path}{?rev,at}').variables).toEqual(['path', 'rev', 'at'])
    expect(compileUriTemplate('test://template/{id}/data').variables).toEqual(['id'])
    expect(compileUriTemplate('static://x').variables).toEqual([])
  })

  describe('simple expansion {id}', () => {
    const template = compileUriTemplate('test://template/{id}/data')

    it('matches and extracts the variable', () => {
      expect(template.match('test://template/7/data')).toEqual({ id: '7' })
      expect(template.match('test://template/abc-DEF_1.2~/data')).toEqual({ id: 'abc-DEF_1.2~' })
    })

    it('percent-decodes the value, and keeps a malformed escape as sent', () => {
      expect(template.match('test://template/hello%20world/data')).toEqual({ id: 'hello world' })
      expect(template.match('test://template/caf%C3%A9/data')).toEqual({ id: 'café' })
      expect(template.match('test://template/%E0%A4%A/data')).toEqual({ id: '%E0%A4%A' })
    })

    it('does not let a simple value span a path segment or a query', () => {
      expect(template.match('test://template/a/b/data')).toBeUndefined()
      expect(template.match('test://template/a?x=1/data')).toBeUndefined()
    })

    // As the SDKs match it: mapbox/mcp-server reads `mapbox://compute/union?data=…` with
    // `mapbox://compute/{spec}`. Before, mcp-edge answered every such read -32602.
    it('with the query: takes it and the fragment, as sent, into a lone variable that ends the template', () => {
      const tail = compileUriTemplate('ref://item/{spec}')
      expect(tail.match('ref://item/abc?x=1')).toBeUndefined()
      expect(tail.matchWithQuery('ref://item/abc?x=1')).toEqual({ spec: 'abc?x=1' })
      expect(tail.matchWithQuery('ref://item/a#frag')).toEqual({ spec: 'a#frag' })
      expect(tail.matchWithQuery('ref://item/a%20b?next=%2Fhome&q=a%26b')).toEqual({ spec: 'a b?next=%2Fhome&q=a%26b' })
      expect(compileUriTemplate('file:///{+path}').matchWithQuery('file:///a/b.txt?rev=3#top')).toEqual({
        path: 'a/b.txt?rev=3#top',
      })
    })

    it('with the query: checks the path part as match does, and matches nothing else', () => {
      const tail = compileUriTemplate('ref://item/{spec}')
      for (const uri of ['ref://item/..?x', 'ref://item/%2E%2E?x', 'ref://item/?x=1', 'ref://item/a/b?x=1', 'ref://item/abc'])
        expect(tail.matchWithQuery(uri)).toBeUndefined()
      expect(compileUriTemplate('file:///{+path}{?rev}').matchWithQuery('file:///a?rev=1#x')).toBeUndefined()
      expect(compileUriTemplate('test://template/{id}/data').matchWithQuery('test://template/a?x=1/data')).toBeUndefined()
      expect(compileUriTemplate('notes://{a}/{b}').matchWithQuery('notes://x/y?z')).toEqual({ a: 'x', b: 'y?z' })
    })

    it('refuses URIs whose literal parts differ', () => {
      expect(template.match('test://template/7/other')).toBeUndefined()
      expect(template.match('other://template/7/data')).toBeUndefined()
      expect(template.match('test://template/7/data/more')).toBeUndefined()
      expect(template.match('xtest://template/7/data')).toBeUndefined()
    })

    it('treats regular-expression characters in the template literally', () => {
      const dotted = compileUriTemplate('a.b+c://x(1)/{id}')
      expect(dotted.match('a.b+c://x(1)/7')).toEqual({ id: '7' })
      expect(dotted.match('aXb+c://x(1)/7')).toBeUndefined()
      expect(dotted.match('a.bbc://x(1)/7')).toBeUndefined()
    })
  })

  describe('path safety (a variable is not a path walk)', () => {
    const file = compileUriTemplate('file:///docs/{name}')
    it('refuses a simple value that decodes to contain / or \\, or to be a dot segment', () => {
      for (const uri of [
        'file:///docs/..%2F..%2Fetc%2Fpasswd',
        'file:///docs/%2E%2E%2F%2E%2E%2Fetc%2Fpasswd',
        'file:///docs/a%2Fb',
        'file:///docs/..%5Cwin.ini',
        'file:///docs/..',
        'file:///docs/%2e%2e',
        'file:///docs/.',
        'file:///docs/../etc',
      ]) {
        expect(file.match(uri), uri).toBeUndefined()
      }
      expect(file.match('file:///docs/a..b')).toEqual({ name: 'a..b' })
      expect(file.match('file:///docs/report%20v2.txt')).toEqual({ name: 'report v2.txt' })
    })

    it('applies to path-segment, label and query expansions too', () => {
      expect(compileUriTemplate('x://{/a}').match('x:///%2E%2E')).toBeUndefined()
      expect(compileUriTemplate('x://f{.ext}').match('x://f.%2Fetc')).toBeUndefined()
      expect(compileUriTemplate('x://q{?path}').match('x://q?path=..%2Fsecret')).toBeUndefined()
      expect(compileUriTemplate('x://q{?path}').match('x://q?path=ok')).toEqual({ path: 'ok' })
    })

    it('lets only reserved expansion carry slashes', () => {
      expect(compileUriTemplate('file:///{+path}').match('file:///a/b%2Fc')).toEqual({ path: 'a/b/c' })
    })
  })

  describe('reserved expansion {+path}', () => {
    it('lets the value span path segments', () => {
      const template = compileUriTemplate('file:///{+path}')
      expect(template.match('file:///a/b/c.txt')).toEqual({ path: 'a/b/c.txt' })
      expect(template.match('file:///dir%20one/x')).toEqual({ path: 'dir one/x' })
    })

    it('stops at a query, which a following {?rev} takes', () => {
      const template = compileUriTemplate('file:///{+path}{?rev}')
      expect(template.match('file:///a/b.txt?rev=3')).toEqual({ path: 'a/b.txt', rev: '3' })
      expect(template.match('file:///a/b.txt')).toEqual({ path: 'a/b.txt' })
    })
  })

  describe('query expansion {?a,b}', () => {
    const template = compileUriTemplate('search://items{?q,limit}')

    it('matches parameters by name in any order', () => {
      expect(template.match('search://items?q=cats&limit=10')).toEqual({ q: 'cats', limit: '10' })
      expect(template.match('search://items?limit=10&q=cats')).toEqual({ q: 'cats', limit: '10' })
    })

    it('allows missing parameters and ignores unknown ones', () => {
      expect(template.match('search://items')).toEqual({})
      expect(template.match('search://items?q=x')).toEqual({ q: 'x' })
      expect(template.match('search://items?q=x&extra=1')).toEqual({ q: 'x' })
    })

    it('percent-decodes values', () => {
      expect(template.match('search://items?q=hot%20dogs%26fries')).toEqual({ q: 'hot dogs&fries' })
    })

    it('continues a query with {&x}', () => {
      const continued = compileUriTemplate('search://items?fixed=1{&page}')
      expect(continued.match('search://items?fixed=1&page=2')).toEqual({ page: '2' })
      expect(continued.match('search://items?fixed=2&page=2')).toBeUndefined()
    })
  })

  describe('path segment expansion {/a,b}', () => {
    const template = compileUriTemplate('api://root{/a,b}')

    it('extracts one variable per segment', () => {
      expect(template.match('api://root/x/y')).toEqual({ a: 'x', b: 'y' })
      expect(template.match('api://root/x')).toEqual({ a: 'x' })
      // The first variable of a path expression is required: a bare root is not a resource.
      expect(template.match('api://root')).toBeUndefined()
    })

    it('refuses more segments than variables', () => {
      expect(template.match('api://root/x/y/z')).toBeUndefined()
    })
  })

  describe('label and fragment expansion', () => {
    it('matches {.ext}', () => {
      expect(compileUriTemplate('file:///readme{.ext}').match('file:///readme.md')).toEqual({ ext: 'md' })
    })

    it('matches {#section}', () => {
      expect(compileUriTemplate('doc://guide{#section}').match('doc://guide#install/linux')).toEqual({ section: 'install/linux' })
    })

    it('reads a path parameter only under its own whole name, with a value free of =', () => {
      const one = compileUriTemplate('map://point{;id}')
      expect(one.match('map://point;id=5')).toEqual({ id: '5' })
      expect(one.match('map://point;id')).toEqual({ id: '' })
      // Not id: another name that starts with it, or a value run into the name.
      expect(one.match('map://point;idx=5')).toBeUndefined()
      expect(one.match('map://point;id5')).toBeUndefined()
      expect(one.match('map://point;id=a=b')).toBeUndefined()
      const two = compileUriTemplate('map://point{;x,y}')
      expect(two.match('map://point;x=1;y=2')).toEqual({ x: '1', y: '2' })
      expect(two.match('map://point;x=1;yy=2')).toBeUndefined()
    })

    it('matches a single {;x} parameter', () => {
      expect(compileUriTemplate('map://point{;x}').match('map://point;x=12')).toEqual({ x: '12' })
    })
  })
})

describe('a resource read, by the templates that match', () => {
  const read = (server: ReturnType<typeof createMcpServer>, uri: string, scopes: string[] = []) =>
    sendAs<{ contents: { text: string }[] }>(server, 'resources/read', { uri }, { subject: 'dave', scopes })
  const server = createMcpServer({ name: 'templates', version: '1' })
  server.resourceTemplate('notes://{id}', { name: 'admin notes', scopes: ['notes:admin'] }, (uri, { id }) => ({
    contents: [{ uri, text: `admin ${id}` }],
  }))
  server.resourceTemplate('notes://{id}{?rev}', { name: 'notes' }, (uri, { id, rev }) => ({
    contents: [{ uri, text: `note ${id} rev ${rev}` }],
  }))
  server.resourceTemplate('ref://item/{spec}', { name: 'refs' }, (uri, { spec }) => ({
    contents: [{ uri, text: `spec ${spec}` }],
  }))

  it('takes the query into a variable only when no template matches the URI as it is', async () => {
    // The later template that matches exactly is not shadowed, nor are the first one's scopes asked.
    expect((await read(server, 'notes://a?rev=2')).result?.contents[0]?.text).toBe('note a rev 2')
    expect((await read(server, 'notes://a', ['notes:admin'])).result?.contents[0]?.text).toBe('admin a')
    expect((await read(server, 'ref://item/union?data=e30')).result?.contents[0]?.text).toBe('spec union?data=e30')
    expect((await read(server, 'ref://item/..?x')).error?.code).toBe(-32602)
  })
})
