import { SELF } from 'cloudflare:test'
import { legacyContract } from '../contract/legacy.ts'

// The 2025-era lane inside workerd, against the fixture Worker through SELF.fetch.
legacyContract(() => ({ url: 'http://127.0.0.1/mcp', fetch: (request) => SELF.fetch(request) }))
