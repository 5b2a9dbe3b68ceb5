/**
 * Requests with a Host header of the test's choosing, for the Host checks: Node's fetch drops a
 * Host header it is given, so these go through node:http. Node only (the workerd tests have no
 * node:http).
 */
import { request as httpRequest } from 'node:http'

/** POST with a Host header of our choosing (Node's fetch drops a Host header it is given). */
export function postWithHost(
  target: string,
  host: string,
  body: string,
  headers: Record<string, string>,
): Promise<{ status: number; body: string }> {
  const { hostname, port, pathname } = new URL(target)
  return new Promise((resolve, reject) => {
    const req = httpRequest({ hostname, port, path: pathname, method: 'POST', headers: { ...headers, host } }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (chunk) => {
        text += chunk
      })
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }))
    })
    req.on('error', reject)
    req.end(body)
  })
}
