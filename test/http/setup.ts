/**
 * Global setup of the http project: one `wrangler dev` for the conformance fixture and one for
 * the template Worker, on free loopback ports, stopped (by process group) when the run ends.
 */
import type { TestProject } from 'vitest/node'
import { startAll, type WranglerServer } from '../support/wrangler.ts'

declare module 'vitest' {
  export interface ProvidedContext {
    fixtureUrl: string
    /** The fixture server's wrangler log (uncaught errors would show there). */
    fixtureLog: string
    templateUrl: string
    /** The template server's wrangler log (start-up warnings). */
    templateLog: string
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const [fixture, template] = (await startAll([
    { config: 'test/fixture/wrangler.jsonc' },
    { config: 'apps/demo/wrangler.jsonc' },
  ])) as [WranglerServer, WranglerServer]
  project.provide('fixtureUrl', fixture.url)
  project.provide('fixtureLog', fixture.logFile)
  project.provide('templateUrl', template.url)
  project.provide('templateLog', template.logFile)
  return async () => {
    await Promise.all([fixture.stop(), template.stop()])
  }
}
