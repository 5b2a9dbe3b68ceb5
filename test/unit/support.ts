/**
 * Small helpers shared by the unit tests: catching the `McpError` a call must throw, so a test can
 * assert its kind, code, HTTP status and message exactly; taking what an outbox holds.
 */
import { expect } from 'vitest'
import { McpError } from '../../packages/mcp-edge/src/protocol/errors.ts'
import type { Outbox, StreamMessage } from '../../packages/mcp-edge/src/server/outbox.ts'

/** Everything `outbox` holds now, taken as a reader would, without waiting. */
export function drain(outbox: Outbox): StreamMessage[] {
  const out: StreamMessage[] = []
  for (let message = outbox.poll(); message !== undefined; message = outbox.poll()) out.push(message)
  return out
}

/** The McpError `fn` throws; fails the test when it throws nothing or something else. */
export function caught(fn: () => unknown): McpError {
  let thrown: unknown
  try {
    fn()
  } catch (error) {
    thrown = error
  }
  expect(thrown).toBeInstanceOf(McpError)
  return thrown as McpError
}

/** The McpError `promise` rejects with; fails the test when it resolves or rejects with something else. */
export async function rejected(promise: Promise<unknown>): Promise<McpError> {
  let thrown: unknown
  try {
    await promise
  } catch (error) {
    thrown = error
  }
  expect(thrown).toBeInstanceOf(McpError)
  return thrown as McpError
}

/** The plain Error `fn` throws (a configuration error, not a protocol one). */
export function configError(fn: () => unknown): Error {
  let thrown: unknown
  try {
    fn()
  } catch (error) {
    thrown = error
  }
  expect(thrown).toBeInstanceOf(Error)
  expect(thrown).not.toBeInstanceOf(McpError)
  return thrown as Error
}
