/**
 * The event hub's log across a crash of `wrangler dev` (the fixture Worker): its whole process
 * group is killed with SIGKILL (nothing shuts down cleanly, as in a crash; a deploy restarts the
 * objects the same way, more gently), and a new `wrangler dev` starts on the same persisted state.
 * An event published after the restart, while the streams are away, reaches a 2026 listen stream
 * resuming with `_meta["dev.mcp-edge/lastEventId"]` and a 2025 GET stream resuming with
 * `Last-Event-ID`, once each, from the log (its numbering kept in SQLite), and live events follow.
 */
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { legacyConnect, legacyGet, legacyRpc } from '../support/legacy.ts'
import { EVENT_ID as ID, faultHelpers } from '../support/fault.ts'
import { startWrangler, type WranglerServer } from '../support/wrangler.ts'

describe('resuming streams across a crash of wrangler dev', () => {
  const persistTo = mkdtempSync(join(tmpdir(), 'mcp-edge-events-fault-'))
  let server: WranglerServer | undefined
  const url = () => (server as WranglerServer).url
  const start = async () => {
    server = await startWrangler({ config: 'test/fixture/wrangler.jsonc', persistTo })
  }
  const { notify, listen } = faultHelpers(url)

  beforeAll(start)
  afterAll(async () => {
    await server?.stop()
  })

  it('a listen stream and a 2025 GET stream each hear, once, the update published after the restart', async () => {
    const base = `test://fault-${crypto.randomUUID()}`
    const legacy = await legacyConnect(fetch, url())
    expect((await legacyRpc(fetch, url(), legacy, 'resources/subscribe', { uri: `${base}/2` })).message.result).toEqual({})
    const modern = await listen(base)
    const get = await legacyGet(fetch, url(), legacy)
    await get.raw()
    await notify(`${base}/1`)
    const heard = await modern.next()
    expect(heard.params.uri).toBe(`${base}/1`)
    const listenId = heard.params._meta[ID] as string
    const getId = /^id: (ev:0-\d+~[\w-]+)$/m.exec(await get.raw())?.[1] as string
    expect(getId).toEqual(expect.any(String))

    const running = server as WranglerServer
    process.kill(-running.pid, 'SIGKILL')
    await running.stop()
    await expect(modern.next()).rejects.toThrow()
    await start()
    await notify(`${base}/2`)

    const resumed = await listen(base, listenId)
    const again = await legacyGet(fetch, url(), legacy, { 'last-event-id': getId })
    try {
      const replayed = await resumed.next()
      // From the log, not a re-read hint (which would name the subscribed base and carry no id).
      expect([replayed.params.uri, replayed.params._meta[ID]]).toEqual([`${base}/2`, expect.stringMatching(/^ev:0-\d+$/)])
      expect(await again.next()).toEqual({
        jsonrpc: '2.0',
        method: 'notifications/resources/updated',
        params: { uri: `${base}/2` },
      })
      await notify(`${base}/3`)
      expect((await resumed.next()).params.uri).toBe(`${base}/3`)
    } finally {
      await resumed.close()
      again.close()
    }
  })
})
