/** The JSON log records a console spy received (mcp-edge writes one JSON text per line). */
export function records(spy: { mock: { calls: unknown[][] } }): Record<string, unknown>[] {
  return spy.mock.calls.map((args) => JSON.parse(String(args[0])) as Record<string, unknown>)
}

/** The records with this `msg`. */
export function recordsNamed(spy: { mock: { calls: unknown[][] } }, msg: string): Record<string, unknown>[] {
  return records(spy).filter((record) => record.msg === msg)
}
