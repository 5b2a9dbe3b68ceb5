import { SELF } from 'cloudflare:test'
import { catalogContract } from '../contract/catalog.ts'

// The catalog contract inside workerd, against the fixture Worker's /catalog through SELF.fetch.
catalogContract(() => ({ url: 'http://127.0.0.1/mcp', fetch: (request) => SELF.fetch(request) }))
