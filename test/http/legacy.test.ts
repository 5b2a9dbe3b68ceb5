import { inject } from 'vitest'
import { legacyContract } from '../contract/legacy.ts'

// The 2025-era lane over real HTTP, against the fixture Worker under wrangler dev.
legacyContract(() => ({ url: inject('fixtureUrl'), fetch, crossRequestContinuations: true }))
