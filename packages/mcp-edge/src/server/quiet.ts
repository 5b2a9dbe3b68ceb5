/**
 * Registry changes this isolate's listen streams do not hear for a while (server.ts
 * `#registryChanged`): mcp-edge/sdk's McpAgent sets its server up again per grant, which changes no
 * grant's lists.
 */
import { Attached } from './attached.ts'

/** Servers whose registry changes this isolate's listeners do not hear now, how many times over (`quiet`). */
const quieted = new Attached<number>('mcp-edge.quiet')

/**
 * Keep `server`'s registry changes from this isolate's listen streams until the returned function
 * is called: mcp-edge/sdk's McpAgent sets its server up again per grant, which changes no grant's
 * lists (an event hub hears nothing of registry changes anyway: `notifyListChanged`). Every
 * change meanwhile is kept from them, whoever makes it.
 *
 * @example
 * const loud = quiet(server)
 * try { await init() } finally { loud() }
 */
export function quiet(server: object): () => void {
  quieted.set(server, (quieted.get(server) ?? 0) + 1)
  let done = false
  return () => {
    if (done) return
    done = true
    const left = (quieted.get(server) ?? 1) - 1
    if (left > 0) quieted.set(server, left)
    else quieted.delete(server)
  }
}

/** Whether `server` is quiet now (`quiet`). */
export function isQuiet(server: object): boolean {
  return quieted.has(server)
}
