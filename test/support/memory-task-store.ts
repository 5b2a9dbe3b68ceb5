/**
 * A `TaskStore` in memory for engine tests, with the faults the tests need:
 * - `connect()` hands out a view for one engine instance; `crash()` makes every earlier view
 *   throw, as a process that is gone can no longer write (a restart is a new view);
 * - `fault(op)` runs before every operation and may throw to fail it; a failed operation applies
 *   nothing (each write is all or nothing, like a SQLite transaction);
 * - the log refuses to write a seq twice and counts the attempts (`rewrites`).
 */
import type { LogItem, StoredStep, TaskRecord, TaskStore } from '../../packages/mcp-edge/src/server/tasks/store.ts'

export class MemoryTaskStore {
  record: string | undefined
  values = new Map<string, string>()
  steps: StoredStep[] = []
  log = new Map<number, string>()
  alarm: number | undefined
  batches: number[] = []
  rewrites = 0
  #generation = 0
  fault: (op: string) => void = () => {}

  get parsed(): TaskRecord | undefined {
    return this.record === undefined ? undefined : (JSON.parse(this.record) as TaskRecord)
  }

  /** The instance holding earlier views is gone: they throw from now on. */
  crash(): void {
    this.#generation++
  }

  connect(): TaskStore {
    const generation = this.#generation
    const check = (op: string) => {
      if (generation !== this.#generation) throw new Error(`${op}: this instance is gone`)
      this.fault(op)
    }
    const answerEntries = () => [...this.values].filter(([name]) => name.startsWith('answer:'))
    return {
      load: () => {
        check('load')
        return this.parsed
      },
      create: (record, call) => {
        check('create')
        this.record = JSON.stringify(record)
        this.values.set('call', call)
      },
      call: () => {
        check('call')
        return this.values.get('call') ?? '{}'
      },
      save: (record) => {
        check('save')
        this.record = JSON.stringify(record)
      },
      saveAnswers: (record, answers) => {
        check('saveAnswers')
        for (const key of Object.keys(answers))
          if (this.values.has(`answer:${key}`)) throw new Error(`answer ${key} stored twice`)
        for (const [key, json] of Object.entries(answers)) this.values.set(`answer:${key}`, json)
        this.record = JSON.stringify(record)
      },
      answers: () => {
        check('answers')
        return Object.fromEntries(answerEntries().map(([name, json]) => [name.slice('answer:'.length), json]))
      },
      completeStep: (step, items) => {
        check('completeStep')
        this.#refuseRewrites(items)
        if (this.steps.some((stored) => stored.name === step.name || stored.index === step.index))
          throw new Error('step stored twice')
        this.#append(items)
        this.steps.push({ ...step })
      },
      steps: () => {
        check('steps')
        return this.steps.map((step) => ({ ...step }))
      },
      appendLog: (items) => {
        check('appendLog')
        this.#refuseRewrites(items)
        this.#append(items)
      },
      readLog: (from, limit) => {
        check('readLog')
        return [...this.log]
          .filter(([seq]) => seq >= from)
          .sort(([a], [b]) => a - b)
          .slice(0, limit)
          .map(([seq, json]) => ({ seq, json }))
      },
      logEnd: () => {
        check('logEnd')
        return this.log.size === 0 ? 0 : Math.max(...this.log.keys()) + 1
      },
      progress: () => {
        check('progress')
        return this.steps.length + (this.log.size === 0 ? 0 : Math.max(...this.log.keys()) + 1) + answerEntries().length
      },
      settle: (record, result) => {
        check('settle')
        if (result !== undefined) this.values.set('result', result)
        this.record = JSON.stringify(record)
      },
      result: () => {
        check('result')
        return this.values.get('result')
      },
      deleteAll: async () => {
        check('deleteAll')
        this.record = undefined
        this.values.clear()
        this.steps = []
        this.log.clear()
        this.alarm = undefined
      },
      setAlarm: async (at) => {
        check('setAlarm')
        this.alarm = at
      },
    }
  }

  #refuseRewrites(items: readonly LogItem[]): void {
    if (items.some((item) => this.log.has(item.seq))) {
      this.rewrites++
      throw new Error('a log seq was written twice')
    }
  }

  #append(items: readonly LogItem[]): void {
    if (items.length > 0) this.batches.push(items.length)
    for (const item of items) this.log.set(item.seq, item.json)
  }
}
