/**
 * The notes of src/tools.ts (the `add_note` tool and the `notes://all` resource): one
 * Durable Object holds them, so every isolate reads and appends to the same list. Template code,
 * not part of the runtime: copy it, or keep your data wherever it already lives.
 *
 * Storage layout (SQLite-backed object, one instance named "all"): one key, `notes`, holding the
 * newest `MAX_NOTES` notes, oldest first (at most 100 × 2,000 characters, far below the 2 MB a
 * value may hold). No alarm.
 */
import { DurableObject } from 'cloudflare:workers'

export const MAX_NOTES = 100
export const MAX_NOTE_LENGTH = 2000

export interface Note {
  id: number
  text: string
  author: string | null
  createdAt: string
}

export class NotesStore extends DurableObject<Record<string, unknown>> {
  /** Append a note; returns its id. */
  add(text: string, author: string | null): number {
    const notes = this.list()
    const id = (notes.at(-1)?.id ?? 0) + 1
    notes.push({ id, text, author, createdAt: new Date().toISOString() })
    this.ctx.storage.kv.put('notes', notes.slice(-MAX_NOTES))
    return id
  }

  /** Every kept note, oldest first. */
  list(): Note[] {
    return this.ctx.storage.kv.get<Note[]>('notes') ?? []
  }
}

/** The binding the notes need: every Worker that serves the template's tools binds NotesStore as NOTES. */
export interface NotesEnv {
  NOTES: DurableObjectNamespace<NotesStore>
}

/**
 * The notes object of a Worker env.
 *
 * @example
 * const id = await notesOf(env.NOTES).add('Buy milk', 'alice')
 */
export function notesOf(namespace: DurableObjectNamespace<NotesStore>): DurableObjectStub<NotesStore> {
  return namespace.get(namespace.idFromName('all'))
}
