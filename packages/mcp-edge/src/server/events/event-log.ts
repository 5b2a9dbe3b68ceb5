/**
 * The event log's pure parts: its bounds, the cursor a stream resumes from, and the re-read hints a
 * stream gets when it resumes from further back than the log reaches. The log itself lives in the
 * hub's SQLite storage (cloudflare/event-log.ts); the streams that carry ids are the 2025 GET
 * stream (SSE `id:` and `Last-Event-ID`) and the listen stream (`_meta[EVENT_ID_META]`, events.ts, on each
 * notification, `_meta[RESUME_META]` on the listen request: the 2026-07-28 transport has no SSE
 * ids and ignores `Last-Event-ID`).
 *
 * Ids: each hub object (shard) numbers the events it logs in one order, kept in storage, so it
 * survives restarts and deploys; a log made again (its storage lost) numbers past anything the one
 * before it gave (cloudflare/event-log.ts), so an older id is never read as one of its own. A
 * stream's cursor is the newest number it has been given from each shard it listens to, written
 * `ev:<shard>-<seq>.<shard>-<seq>…` (shards in ascending order), so one id covers a stream that
 * merges topics from several shards. A hub that spreads topics over n > 1 shards adds the pair
 * `9999-<n>` (`SPREAD_PAIR`; no shard has that index): an id from another spread names shards that
 * logged other topics, and resumes as an unknown one (every topic hinted). An id without it (a
 * one-shard hub's, or one given before ids said their spread) is taken as it is. Earlier releases
 * read the pair as a shard they do not listen to, and so resume such an id as before. A suffix
 * `~<anything>` is read past: a 2025 GET stream's priming id is its starting cursor with the
 * stream's own nonce, so that no two events of a session share an id (2025 streamable-http).
 */
import type { Cursor, McpEvent } from './events.ts'

export interface EventLogOptions {
  /** Events kept per topic (default 1,000); 0 keeps none (no resumption, every resume gets a hint). */
  maxEvents?: number
  /** How long an event is kept, in ms (default 10 minutes). */
  maxAgeMs?: number
}

export const DEFAULT_LOG_EVENTS = 1000
export const DEFAULT_LOG_AGE_MS = 10 * 60_000
/** The start of every cursor (a 2025 GET stream's priming id and a call stream's `p:` never start so). */
export const CURSOR_PREFIX = 'ev:'
/** The most shards a hub spreads topics over (`cloudflareEventHub`'s `shards`). */
export const MAX_SHARDS = 128
/** The index of the pair that says over how many shards a hub spreads topics (module header). */
export const SPREAD_PAIR = 9999
/** The longest cursor read: `MAX_SHARDS` shards of 15-digit numbers, the spread and a priming nonce fit. */
export const MAX_CURSOR_CHARS = 2700
/** What an SSE formatter reads as a message's event id (a 2025 GET stream's `id:`); never serialised. */
export const SSE_ID = Symbol('mcp-edge SSE id')
/** `_meta` key of a `subscriptions/listen` request resuming after the cursor it names. */
export const RESUME_META = 'dev.mcp-edge/lastEventId'

/**
 * The id of `cursor`, given by a hub that spreads topics over `shards` shards.
 *
 * @example
 * encodeCursor(new Map([[0, 17]]), 1) // 'ev:0-17'
 * encodeCursor(new Map([[1, 5], [0, 17]]), 4) // 'ev:0-17.1-5.9999-4'
 */
export function encodeCursor(cursor: ReadonlyMap<number, number>, shards: number): string {
  // One shard (the usual case): every delivered event's id is made here, once per stream.
  if (cursor.size === 1 && shards === 1) {
    for (const [shard, seq] of cursor) return `${CURSOR_PREFIX}${shard}-${seq}`
  }
  const pairs = [...cursor].sort(([a], [b]) => a - b).map(([shard, seq]) => `${shard}-${seq}`)
  if (shards > 1) pairs.push(`${SPREAD_PAIR}-${shards}`)
  return `${CURSOR_PREFIX}${pairs.join('.')}`
}

const PAIR = /^(\d{1,4})-(\d{1,15})$/

/**
 * The cursor `text` names, or `undefined` when it is not one (malformed, or another kind of id).
 * Its `shards` is the spread the id says, if it says one.
 *
 * @example
 * decodeCursor('ev:0-17.3-9.9999-4') // Map { 0 => 17, 3 => 9 }, shards 4
 * decodeCursor('ev:0-17~AbC') // Map { 0 => 17 }, shards undefined (a priming id)
 */
export function decodeCursor(text: string): Cursor | undefined {
  if (!text.startsWith(CURSOR_PREFIX) || text.length > MAX_CURSOR_CHARS) return undefined
  const suffix = text.indexOf('~')
  const body = text.slice(CURSOR_PREFIX.length, suffix < 0 ? undefined : suffix)
  const cursor: Cursor = new Map()
  if (body === '') return cursor
  for (const pair of body.split('.')) {
    const match = PAIR.exec(pair)
    if (!match) return undefined
    const shard = Number(match[1])
    if (cursor.has(shard)) return undefined
    cursor.set(shard, Number(match[2]))
  }
  const spread = cursor.get(SPREAD_PAIR)
  if (spread !== undefined) {
    if (spread < 2 || spread > MAX_SHARDS) return undefined
    cursor.delete(SPREAD_PAIR)
    cursor.shards = spread
  }
  return cursor
}

/**
 * What a stream hears for topics whose missed events the log no longer holds: the notification
 * that makes a client read again (a list changed, a resource updated). Task and log topics have
 * none: a listen stream sends each watched task's current state first anyway, and a lost log
 * message cannot be re-read.
 *
 * @example
 * gapHints(['list:tools', 'resource:notes://all']) // [{ type: 'listChanged', list: 'tools' }, { type: 'resourceUpdated', uri: 'notes://all' }]
 */
export function gapHints(topics: Iterable<string>): McpEvent[] {
  const hints: McpEvent[] = []
  for (const topic of topics) {
    if (topic === 'list:tools' || topic === 'list:prompts' || topic === 'list:resources') {
      hints.push({ type: 'listChanged', list: topic.slice(5) as 'tools' | 'prompts' | 'resources' })
    } else if (topic.startsWith('resource:')) hints.push({ type: 'resourceUpdated', uri: topic.slice(9) })
  }
  return hints
}
