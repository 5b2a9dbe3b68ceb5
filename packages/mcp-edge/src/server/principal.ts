/**
 * The key every isolation check uses (sealed states, sessions, tasks, input exchanges, listen
 * streams, caps): the principal's subject, or `null` for a caller nobody authenticated. One home,
 * so every check compares the same thing.
 */
import type { Principal } from './types.ts'

/**
 * @example
 * subjectOf({ subject: 'ada' }) // 'ada'
 * subjectOf(undefined)          // null
 */
export function subjectOf(principal: Principal | undefined): string | null {
  return principal?.subject ?? null
}
