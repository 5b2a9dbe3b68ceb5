/**
 * One hub object's event log, in its SQLite storage: every published event numbered (one sequence
 * per object, so one order per shard, kept across restarts), kept per topic within the bounds the
 * publisher names (count and age; server/events/event-log.ts), and read back after a cursor.
 * Called by `McpEventHub` only; it decides nothing about who may see an event (the hub does).
 *
 * Storage layout:
 * - `event_log (topic, seq, at, event, id)`: one row per topic an event is routed under (a resource
 *   update is a row under its URI, each `/`-prefix and `resources:all`), the event as JSON, `at`
 *   in ms since the epoch, and `id`, the id of an event sent to several shards (NULL otherwise),
 *   so a replayed copy is dropped as a live one is (the column is added to a log made before it).
 *   Key `(topic, seq)`, index on `at`.
 * - `event_floor (topic, seq, at)`: the newest `seq` of a topic's pruned rows: a cursor before it
 *   missed events the log no longer holds. Floors older than `FLOOR_KEEP_MS` go, and the newest
 *   `seq` they held becomes `forgotten` (any cursor before it gets a hint, topic or not).
 * - `event_count (topic, n)`: how many rows a topic has, so the count bound is kept by reading the
 *   oldest row or two, never by counting. Index on `event_floor (at)`, so age pruning reads only
 *   what it drops.
 * - `event_meta (key, value)`: `head` (the newest `seq` given) and `forgotten`.
 *
 * Numbering: a new log starts at its creation time (`SEQS_PER_MS` per ms), not at 1, and takes
 * everything before that as forgotten. A log made again, because its object's storage was lost or
 * its class moved, thus numbers past every id its predecessor gave: a cursor from before reads as
 * older than the log remembers (every topic hinted), never as a place in the new numbering, where
 * it would replay the wrong events unsaid.
 *
 * A replay is bounded (`MAX_REPLAY_EVENTS`, `MAX_REPLAY_BYTES`): it reads the seqs after the cursor
 * from the keys alone, then the events' JSON only for the batch it returns, and says whether more
 * follow (the listener asks again after the batch, cloudflare/events.ts).
 *
 * Cleanup happens on write (each publish prunes its topics by count, and everything by age) and
 * on each resume (by age); no alarm, so an idle hub keeps its last rows until it is written again.
 */
import { DEFAULT_LOG_AGE_MS, DEFAULT_LOG_EVENTS } from '../server/events/event-log.ts'
import type { EventLogOptions } from '../server/events/event-log.ts'
import type { McpEvent } from '../server/events/events.ts'
import { MAX_INBOX } from '../server/events/listen-hub.ts'

/**
 * The most events one replay returns: half a listener's inbox, the rest left for live events. A
 * listener of several shards asks each for its share (`replayBatch`), so their first batches,
 * which come at once, fit too.
 */
export const MAX_REPLAY_EVENTS = MAX_INBOX / 2

/**
 * The events per replay batch for a listener of `shards` shards: `MAX_REPLAY_EVENTS` shared among them (at least 1).
 *
 * @example
 * replayBatch(1) // 128
 * replayBatch(3) // 42
 */
export function replayBatch(shards: number): number {
  return Math.max(1, Math.floor(MAX_REPLAY_EVENTS / Math.max(1, shards)))
}
/** The most event JSON one replay returns, in bytes (at least one event, however large). */
export const MAX_REPLAY_BYTES = 1024 * 1024

/**
 * A new log's first `seq` is its creation time in ms times this (module header): a log made again
 * numbers past its predecessor unless that one logged over 100 events per ms (100,000 a second,
 * some hundred times what one object serves) over its whole life. 15 digits until the year 2286.
 */
export const SEQS_PER_MS = 100

/** How long a pruned topic's floor is remembered (a cursor older than that gets a hint for every topic). */
export const FLOOR_KEEP_MS = 24 * 60 * 60_000

export interface Replay {
  /** Events after the cursor, in order, once each, with the id of those sent to several shards. */
  events: Array<{ seq: number; event: McpEvent; id?: string }>
  /** Topics with missed events the log no longer holds. */
  gaps: string[]
  /**
   * For each of `gaps`, the newest `seq` it lost (its floor; for a cursor past the head, a wiped
   * log: `Number.MAX_SAFE_INTEGER`): a stream that already hinted a topic lost nothing new to it
   * unless its floor passed the head the stream started at (hub-listener.ts).
   */
  floors: number[]
  /** The newest `seq` given. */
  head: number
  /** Whether events after the last one returned were left for the next replay (the bound). */
  more: boolean
}

/** How much one replay returns (default `MAX_REPLAY_EVENTS`, `MAX_REPLAY_BYTES`). */
export interface ReplayBound {
  events: number
  bytes: number
}

export class SqlEventLog {
  readonly #sql: SqlStorage

  constructor(sql: SqlStorage) {
    this.#sql = sql
    sql.exec(`CREATE TABLE IF NOT EXISTS event_log (topic TEXT NOT NULL, seq INTEGER NOT NULL, at INTEGER NOT NULL,
      event TEXT NOT NULL, id TEXT, PRIMARY KEY (topic, seq))`)
    // A log written before events kept their id gets the column (its old rows have none).
    if (sql.exec("SELECT 1 FROM pragma_table_info('event_log') WHERE name = 'id'").toArray().length === 0) {
      sql.exec('ALTER TABLE event_log ADD COLUMN id TEXT')
    }
    sql.exec('CREATE INDEX IF NOT EXISTS event_log_at ON event_log (at)')
    sql.exec('CREATE TABLE IF NOT EXISTS event_floor (topic TEXT PRIMARY KEY, seq INTEGER NOT NULL, at INTEGER NOT NULL)')
    sql.exec('CREATE INDEX IF NOT EXISTS event_floor_at ON event_floor (at)')
    sql.exec('CREATE TABLE IF NOT EXISTS event_count (topic TEXT PRIMARY KEY, n INTEGER NOT NULL)')
    sql.exec('CREATE TABLE IF NOT EXISTS event_meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL)')
    // A new log numbers from its creation time (module header), and remembers nothing before it.
    if (sql.exec("SELECT 1 FROM event_meta WHERE key = 'head'").toArray().length === 0) {
      const start = Date.now() * SEQS_PER_MS
      this.#setMeta('head', start)
      this.#setMeta('forgotten', start)
    }
  }

  /** The newest `seq` given (the log's start before the first). */
  get head(): number {
    return this.#meta('head')
  }

  /** Number `event` (with `id`, when sent to several shards), keep it under `topics` within the bounds, and return its `seq`. */
  append(event: McpEvent, topics: readonly string[], options: EventLogOptions = {}, id?: string): number {
    const seq = this.head + 1
    this.#setMeta('head', seq)
    const now = Date.now()
    const maxEvents = options.maxEvents ?? DEFAULT_LOG_EVENTS
    const json = JSON.stringify(event)
    for (const topic of topics) {
      // Nothing kept (maxEvents 0): this event itself is past the log's reach.
      if (maxEvents <= 0) {
        this.#floor(topic, seq, now)
        continue
      }
      this.#sql.exec(
        'INSERT INTO event_log (topic, seq, at, event, id) VALUES (?, ?, ?, ?, ?)',
        topic,
        seq,
        now,
        json,
        id ?? null,
      )
      const { n } = this.#sql
        .exec<{ n: number }>(
          'INSERT INTO event_count VALUES (?, 1) ON CONFLICT (topic) DO UPDATE SET n = n + 1 RETURNING n',
          topic,
        )
        .one()
      if (n > maxEvents) this.#dropOldest(topic, n - maxEvents)
    }
    this.prune(options)
    return seq
  }

  /** Drop rows past the age bound (their floors remember them) and floors past `FLOOR_KEEP_MS`. */
  prune(options: EventLogOptions = {}): void {
    const now = Date.now()
    const before = now - (options.maxAgeMs ?? DEFAULT_LOG_AGE_MS)
    // The index on `at` finds the oldest row in one read; only then is anything grouped.
    const stale = this.#sql.exec('SELECT 1 FROM event_log WHERE at < ? LIMIT 1', before).toArray().length > 0
    const aged = !stale
      ? []
      : this.#sql
          .exec<{ topic: string; seq: number; at: number; n: number }>(
            'SELECT topic, max(seq) AS seq, max(at) AS at, count(*) AS n FROM event_log WHERE at < ? GROUP BY topic',
            before,
          )
          .toArray()
    for (const { topic, seq, at, n } of aged) {
      this.#floor(topic, seq, at)
      this.#sql.exec('UPDATE event_count SET n = n - ? WHERE topic = ?', n, topic)
    }
    if (aged.length > 0) {
      this.#sql.exec('DELETE FROM event_log WHERE at < ?', before)
      this.#sql.exec('DELETE FROM event_count WHERE n <= 0')
    }
    const forgotten = this.#sql
      .exec<{ seq: number | null }>('SELECT max(seq) AS seq FROM event_floor WHERE at < ?', now - FLOOR_KEEP_MS)
      .one().seq
    if (forgotten !== null) {
      this.#setMeta('forgotten', Math.max(forgotten, this.#meta('forgotten')))
      this.#sql.exec('DELETE FROM event_floor WHERE at < ?', now - FLOOR_KEEP_MS)
    }
  }

  /** What a stream listening to `topics` missed after `after`, up to `bound` (module header). */
  replay(
    topics: readonly string[],
    after: number,
    options: EventLogOptions = {},
    bound: ReplayBound = { events: MAX_REPLAY_EVENTS, bytes: MAX_REPLAY_BYTES },
  ): Replay {
    this.prune(options)
    const head = this.head
    // A cursor from the future: this log was wiped (or is another one); everything may be missed.
    const forgotten = this.#meta('forgotten')
    if (after > head || after < forgotten) {
      const floor = after > head ? Number.MAX_SAFE_INTEGER : forgotten
      return { events: [], gaps: [...topics], floors: topics.map(() => floor), head, more: false }
    }
    // One key lookup and one key range per topic (the primary keys, no event read), merged here:
    // an event under several of the topics is replayed once. The first `bound.events` seqs of the
    // merge are among each topic's first `bound.events + 1`.
    const gaps: string[] = []
    const floors: number[] = []
    const topicOf = new Map<number, string>()
    for (const topic of topics) {
      const floor = this.#sql.exec<{ seq: number }>('SELECT seq FROM event_floor WHERE topic = ?', topic).toArray()[0]
      if (floor && floor.seq > after) {
        gaps.push(topic)
        floors.push(floor.seq)
      }
      const rows = this.#sql.exec<{ seq: number }>(
        'SELECT seq FROM event_log WHERE topic = ? AND seq > ? ORDER BY seq LIMIT ?',
        topic,
        after,
        bound.events + 1,
      )
      for (const row of rows) if (!topicOf.has(row.seq)) topicOf.set(row.seq, topic)
    }
    const seqs = [...topicOf.keys()].sort((a, b) => a - b)
    const events: Replay['events'] = []
    let bytes = 0
    for (const seq of seqs) {
      if (events.length >= bound.events) break
      const row = this.#sql
        .exec<{ event: string; id: string | null; bytes: number }>(
          'SELECT event, id, length(CAST(event AS BLOB)) AS bytes FROM event_log WHERE topic = ? AND seq = ?',
          topicOf.get(seq),
          seq,
        )
        .one()
      if (events.length > 0 && bytes + row.bytes > bound.bytes) break
      bytes += row.bytes
      const event = JSON.parse(row.event) as McpEvent
      events.push(row.id === null ? { seq, event } : { seq, event, id: row.id })
    }
    return { events, gaps, floors, head, more: events.length < seqs.length }
  }

  /** Drop a topic's `excess` oldest rows, remembering the newest of them as its floor. */
  #dropOldest(topic: string, excess: number): void {
    const newest = this.#sql
      .exec<{ seq: number; at: number }>(
        'SELECT seq, at FROM event_log WHERE topic = ? ORDER BY seq LIMIT 1 OFFSET ?',
        topic,
        excess - 1,
      )
      .one()
    this.#floor(topic, newest.seq, newest.at)
    this.#sql.exec('DELETE FROM event_log WHERE topic = ? AND seq <= ?', topic, newest.seq)
    this.#sql.exec('UPDATE event_count SET n = n - ? WHERE topic = ?', excess, topic)
  }

  #floor(topic: string, seq: number, at: number): void {
    this.#sql.exec(
      `INSERT INTO event_floor VALUES (?, ?, ?)
       ON CONFLICT (topic) DO UPDATE SET seq = max(seq, excluded.seq), at = max(at, excluded.at)`,
      topic,
      seq,
      at,
    )
  }

  #meta(key: string): number {
    return this.#sql.exec<{ value: number }>('SELECT value FROM event_meta WHERE key = ?', key).toArray()[0]?.value ?? 0
  }

  #setMeta(key: string, value: number): void {
    this.#sql.exec('INSERT INTO event_meta VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value', key, value)
  }
}
