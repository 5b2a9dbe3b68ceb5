/**
 * What the fault tests over `wrangler dev` (test/http/*-fault.test.ts) do to the fixture again and
 * again: publish a resource update through its `notify_resource` tool, and open a listen stream on
 * a URI prefix, resumed after an event id when given.
 */
import { expect } from 'vitest'
import { buildRequest, openStream, rpc } from './mcp.ts'

export const EVENT_ID = 'dev.mcp-edge/eventId'
export const RESUME = 'dev.mcp-edge/lastEventId'

export function faultHelpers(url: () => string) {
  const notify = async (uri: string) => {
    const { message } = await rpc(fetch, url(), 'tools/call', { name: 'notify_resource', arguments: { uri } })
    expect(message.result?.content?.[0]?.text).toBe(`published ${uri}`)
  }
  const listen = async (base: string, after?: string) => {
    const meta = after === undefined ? undefined : { [RESUME]: after }
    const request = buildRequest(url(), 'subscriptions/listen', { notifications: { resourceSubscriptions: [base] } }, { meta })
    const stream = await openStream(fetch, request)
    expect((await stream.next()).method).toBe('notifications/subscriptions/acknowledged')
    return stream
  }
  return { notify, listen }
}
