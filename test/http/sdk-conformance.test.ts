/**
 * The official conformance suite against a server written entirely in the SDK style: the suite's
 * names for @modelcontextprotocol/server 2.x behind agents' stateless createMcpHandler, its imports
 * changed to `mcp-edge/sdk` (test/fixture-sdk/conformance), under `wrangler dev`. Every scenario
 * 2026-07-28 requires, and every server scenario 2025-11-25 requires, must pass through the
 * adapter as it does for the native fixture (test/http/conformance.test.ts). The pending and Tasks
 * scenarios that scripts/conformance.mjs also runs are not asserted here: an SDK server has no
 * tasks, and the pending ones are not required.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bad, IGNORED_UNASKED_ANSWERS, LEGACY_REQUIRED, REQUIRED, type Run, runSuite } from '../support/conformance.ts'
import { startWrangler, type WranglerServer } from '../support/wrangler.ts'

let fixture: WranglerServer

beforeAll(async () => {
  fixture = await startWrangler({ config: 'test/fixture-sdk/conformance/wrangler.jsonc' })
}, 120_000)
afterAll(() => fixture?.stop())

function passes(run: () => Run, scenario: string): void {
  const reported = run().checks.get(scenario) ?? []
  if (scenario === IGNORED_UNASKED_ANSWERS) {
    // As for the native fixture (test/conformance/expected-failures.yml): answers without a
    // requestState are not read, so a pre-answered first call is asked again.
    expect(bad(reported).map((line) => line.split(':')[0])).toEqual(['sep-2322-ignore-unexpected-params'])
    return
  }
  expect(bad(reported)).toEqual([])
  expect(reported.some((check) => check.status === 'SUCCESS')).toBe(true)
}

describe('official conformance suite against the SDK-style server (--requirements 2026-07-28)', () => {
  let run: Run
  beforeAll(async () => {
    run = await runSuite(fixture.url, [])
  }, 180_000)

  it('ran every required scenario', () => {
    expect(REQUIRED.filter((scenario) => !run.checks.has(scenario))).toEqual([])
  })
  for (const scenario of REQUIRED) it(scenario, () => passes(() => run, scenario))
})

describe('official conformance suite against the SDK-style server (--requirements 2025-11-25)', () => {
  let run: Run
  beforeAll(async () => {
    run = await runSuite(fixture.url, ['--requirements', '2025-11-25'])
  }, 180_000)

  it('ran every required scenario', () => {
    expect(LEGACY_REQUIRED.filter((scenario) => !run.checks.has(scenario))).toEqual([])
  })
  for (const scenario of LEGACY_REQUIRED) it(scenario, () => passes(() => run, scenario))
})
