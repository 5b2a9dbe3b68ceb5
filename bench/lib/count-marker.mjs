/**
 * Count a marker in a stream's text as it arrives, across chunk boundaries: how the fan-out
 * benches tell updates and acknowledgements on a stream without parsing it. No imports, so the
 * scale step's driver Worker (workers/scale-driver, run by workerd) loads it too.
 *
 * @example
 * const updates = counter('notifications/resources/updated')
 * updates('…notifications/resour') // 0
 * updates('ces/updated…') // 1
 */
export function counter(marker) {
  let tail = ''
  return (text) => {
    const all = tail + text
    let count = 0
    for (let at = all.indexOf(marker); at >= 0; at = all.indexOf(marker, at + marker.length)) count++
    tail = all.slice(-(marker.length - 1))
    return count
  }
}
