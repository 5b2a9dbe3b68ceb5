/**
 * A minimal Chrome DevTools Protocol client over the `ws` package (Node 20 has no WebSocket),
 * enough to drive V8's sampling profiler in workerd.
 */
import WebSocket from 'ws'

export async function connectCdp(url) {
  const socket = new WebSocket(url)
  await new Promise((resolve, reject) => {
    socket.once('open', resolve)
    socket.once('error', reject)
  })
  const pending = new Map()
  let lastId = 0
  socket.on('message', (data) => {
    const message = JSON.parse(String(data))
    const waiter = pending.get(message.id)
    // workerd answers some commands (Profiler.enable, …) by echoing the command without `result`.
    if (!waiter) return
    pending.delete(message.id)
    if (message.error) waiter.reject(new Error(`CDP ${waiter.method}: ${message.error.message}`))
    else waiter.resolve(message.result ?? {})
  })
  return {
    send(method, params = {}) {
      const id = ++lastId
      return new Promise((resolve, reject) => {
        pending.set(id, { method, resolve, reject })
        socket.send(JSON.stringify({ id, method, params }))
      })
    },
    close: () => socket.close(),
  }
}
