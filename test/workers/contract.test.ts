import { SELF } from 'cloudflare:test'
import { protocolContract } from '../contract/protocol.ts'

// The shared contract inside workerd, against the fixture Worker through SELF.fetch.
protocolContract(() => ({ url: 'http://127.0.0.1/mcp', fetch: (request) => SELF.fetch(request) }))
