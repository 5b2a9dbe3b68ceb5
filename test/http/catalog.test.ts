import { inject } from 'vitest'
import { catalogContract } from '../contract/catalog.ts'

// The catalog contract over real HTTP, against the fixture Worker's /catalog under wrangler dev.
catalogContract(() => ({ url: inject('fixtureUrl'), fetch }))
