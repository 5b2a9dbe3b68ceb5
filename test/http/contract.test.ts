import { inject } from 'vitest'
import { protocolContract } from '../contract/protocol.ts'

// The shared contract over real HTTP, against the fixture Worker under wrangler dev.
protocolContract(() => ({ url: inject('fixtureUrl'), fetch }))
