/**
 * A minimal Chrome DevTools Protocol client over the `ws` package (Node 20 has no WebSocket),
 * enough to drive V8's sampling profiler in workerd.
 */
import WebSocket from 'ws'

/** How long a command may wait for its answer. */
const CDP_TIMEOUT_MS = 30_000

export async function connectCdp(url) {
  const socket = new WebSocket(url)
  await new Promise((resolve, reject) => {
    socket.once('open', resolve)
    socket.once('error', reject)
  })
  const pending = new Map()
  /** Listeners of CDP events (messages without an id), by method. */
  const listeners = new Map()
  let lastId = 0
  const settle = (id) => {
    const waiter = pending.get(id)
    if (waiter) clearTimeout(waiter.timer)
    pending.delete(id)
    return waiter
  }
  socket.on('message', (data) => {
    const message = JSON.parse(String(data))
    if (message.id === undefined) return void listeners.get(message.method)?.(message.params)
    // workerd answers some commands (Profiler.enable, …) by echoing the command without `result`.
    const waiter = pending.has(message.id) ? settle(message.id) : undefined
    if (!waiter) return
    if (message.error) waiter.reject(new Error(`CDP ${waiter.method}: ${message.error.message}`))
    else waiter.resolve(message.result ?? {})
  })
  // A command never answered (workerd's inspector, now and then, under load) or a closed socket
  // fails the command instead of hanging the bench.
  socket.on('close', () => {
    for (const id of [...pending.keys()]) settle(id)?.reject(new Error('CDP: the inspector closed'))
  })
  return {
    send(method, params = {}) {
      const id = ++lastId
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => settle(id)?.reject(new Error(`CDP ${method}: no answer in ${CDP_TIMEOUT_MS} ms`)),
          CDP_TIMEOUT_MS,
        )
        pending.set(id, { method, resolve, reject, timer })
        socket.send(JSON.stringify({ id, method, params }))
      })
    },
    /** Call `listener(params)` on each event `method` (one listener per method; undefined removes it). */
    on(method, listener) {
      if (listener) listeners.set(method, listener)
      else listeners.delete(method)
    },
    close: () => socket.close(),
  }
}
