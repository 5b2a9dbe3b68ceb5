/**
 * `TaskStore` on the SQLite storage of the task's Durable Object. Layout:
 *
 *   task(id = 0, record TEXT)                 the TaskRecord, rewritten on status changes (small, bounded)
 *   value(name TEXT, part INTEGER, data BLOB) 'call', 'result', 'answer:<key>', 'step:<index>' (a step's
 *                                             parts after the first): JSON as UTF-8, split in parts of
 *                                             STORED_PART_BYTES (512 KiB), so no row nears the 2 MB limit
 *   step(idx INTEGER PRIMARY KEY, name TEXT UNIQUE, log_end INTEGER, parts INTEGER, data BLOB)
 *                                             completed steps, in call order, with their first part inline
 *                                             (one row per step for values up to 512 KiB)
 *   partial_log(seq INTEGER PRIMARY KEY, params TEXT)
 *                                             append only: a plain INSERT, so writing a seq twice fails
 *                                             instead of rewriting it
 *
 * Values other than the record are written once and never updated. Multi-row writes run in
 * `transactionSync`, so each TaskStore method is all or nothing. Tables are made on the first
 * write, so a lookup of a made-up task id writes nothing.
 */
import { STORED_PART_BYTES } from '../server/tasks/limits.ts'
import type { LogItem, StoredStep, TaskRecord, TaskStore } from '../server/tasks/store.ts'

const encoder = new TextEncoder()
const ANSWER = 'answer:'
/** Every answer name sorts between ANSWER and this (':' + 1 is ';'). */
const AFTER_ANSWERS = 'answer;'

function split(json: string): Uint8Array[] {
  const bytes = encoder.encode(json)
  if (bytes.byteLength <= STORED_PART_BYTES) return [bytes]
  const parts: Uint8Array[] = []
  for (let at = 0; at < bytes.byteLength; at += STORED_PART_BYTES) parts.push(bytes.slice(at, at + STORED_PART_BYTES))
  return parts
}

/** The text of a value's parts (a streaming decoder keeps a character split across parts whole). */
function join(parts: ArrayBuffer[]): string {
  const decoder = new TextDecoder()
  return parts.map((part) => decoder.decode(part, { stream: true })).join('') + decoder.decode()
}

export class SqliteTaskStore implements TaskStore {
  readonly #storage: DurableObjectStorage
  readonly #sql: SqlStorage
  #tables = false

  constructor(storage: DurableObjectStorage) {
    this.#storage = storage
    this.#sql = storage.sql
  }

  #exists(): boolean {
    this.#tables ||= this.#sql.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'task'").toArray().length > 0
    return this.#tables
  }

  #count(query: string, ...bindings: unknown[]): number {
    return this.#sql.exec<{ n: number }>(query, ...bindings).one().n
  }

  #writeValue(name: string, parts: readonly Uint8Array[], first = 0): void {
    for (let part = first; part < parts.length; part++) {
      this.#sql.exec('INSERT INTO value (name, part, data) VALUES (?, ?, ?)', name, part, parts[part])
    }
  }

  #valueParts(name: string): ArrayBuffer[] {
    return this.#sql
      .exec<{ data: ArrayBuffer }>('SELECT data FROM value WHERE name = ? ORDER BY part', name)
      .toArray()
      .map((row) => row.data)
  }

  #readValue(name: string): string | undefined {
    const parts = this.#valueParts(name)
    return parts.length > 0 ? join(parts) : undefined
  }

  load(): TaskRecord | undefined {
    if (!this.#exists()) return undefined
    const row = this.#sql.exec<{ record: string }>('SELECT record FROM task WHERE id = 0').toArray()[0]
    return row ? (JSON.parse(row.record) as TaskRecord) : undefined
  }

  create(record: TaskRecord, call: string): void {
    this.#storage.transactionSync(() => {
      this.#sql.exec(
        'CREATE TABLE IF NOT EXISTS task (id INTEGER PRIMARY KEY CHECK (id = 0), record TEXT NOT NULL);' +
          'CREATE TABLE IF NOT EXISTS value (name TEXT NOT NULL, part INTEGER NOT NULL, data BLOB NOT NULL, PRIMARY KEY (name, part));' +
          'CREATE TABLE IF NOT EXISTS step (idx INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, log_end INTEGER NOT NULL, parts INTEGER NOT NULL, data BLOB NOT NULL);' +
          'CREATE TABLE IF NOT EXISTS partial_log (seq INTEGER PRIMARY KEY, params TEXT NOT NULL);',
      )
      this.save(record)
      this.#writeValue('call', split(call))
    })
    this.#tables = true
  }

  call(): string {
    return this.#readValue('call') ?? '{}'
  }

  save(record: TaskRecord): void {
    this.#sql.exec('INSERT OR REPLACE INTO task (id, record) VALUES (0, ?)', JSON.stringify(record))
  }

  saveAnswers(record: TaskRecord, answers: Record<string, string>): void {
    this.#storage.transactionSync(() => {
      for (const [key, json] of Object.entries(answers)) this.#writeValue(ANSWER + key, split(json))
      this.save(record)
    })
  }

  answers(): Record<string, string> {
    const rows = this.#sql
      .exec<{ name: string; data: ArrayBuffer }>(
        'SELECT name, data FROM value WHERE name >= ? AND name < ? ORDER BY name, part',
        ANSWER,
        AFTER_ANSWERS,
      )
      .toArray()
    const parts = new Map<string, ArrayBuffer[]>()
    for (const row of rows) parts.set(row.name, [...(parts.get(row.name) ?? []), row.data])
    return Object.fromEntries([...parts].map(([name, data]) => [name.slice(ANSWER.length), join(data)]))
  }

  completeStep(step: StoredStep, items: readonly LogItem[]): void {
    const parts = split(step.json)
    this.#storage.transactionSync(() => {
      this.appendLog(items)
      this.#sql.exec(
        'INSERT INTO step (idx, name, log_end, parts, data) VALUES (?, ?, ?, ?, ?)',
        step.index,
        step.name,
        step.logEnd,
        parts.length,
        parts[0],
      )
      this.#writeValue(`step:${step.index}`, parts, 1)
    })
  }

  steps(): StoredStep[] {
    return this.#sql
      .exec<{ idx: number; name: string; log_end: number; parts: number; data: ArrayBuffer }>(
        'SELECT idx, name, log_end, parts, data FROM step ORDER BY idx',
      )
      .toArray()
      .map((row) => {
        const rest = row.parts > 1 ? this.#valueParts(`step:${row.idx}`) : []
        return { name: row.name, index: row.idx, logEnd: row.log_end, json: join([row.data, ...rest]) }
      })
  }

  appendLog(items: readonly LogItem[]): void {
    for (const item of items) this.#sql.exec('INSERT INTO partial_log (seq, params) VALUES (?, ?)', item.seq, item.json)
  }

  readLog(from: number, limit: number): LogItem[] {
    if (!this.#exists()) return []
    return this.#sql
      .exec<{ seq: number; params: string }>(
        'SELECT seq, params FROM partial_log WHERE seq >= ? ORDER BY seq LIMIT ?',
        from,
        limit,
      )
      .toArray()
      .map((row) => ({ seq: row.seq, json: row.params }))
  }

  logEnd(): number {
    return this.#count('SELECT COALESCE(MAX(seq) + 1, 0) AS n FROM partial_log')
  }

  progress(): number {
    return (
      this.#count('SELECT COUNT(*) AS n FROM step') +
      this.logEnd() +
      this.#count('SELECT COUNT(DISTINCT name) AS n FROM value WHERE name >= ? AND name < ?', ANSWER, AFTER_ANSWERS)
    )
  }

  settle(record: TaskRecord, result?: string): void {
    this.#storage.transactionSync(() => {
      if (result !== undefined) this.#writeValue('result', split(result))
      this.save(record)
    })
  }

  result(): string | undefined {
    return this.#readValue('result')
  }

  async deleteAll(): Promise<void> {
    await this.#storage.deleteAlarm()
    await this.#storage.deleteAll()
    this.#tables = false
  }

  async setAlarm(at: number): Promise<void> {
    await this.#storage.setAlarm(at)
  }
}
