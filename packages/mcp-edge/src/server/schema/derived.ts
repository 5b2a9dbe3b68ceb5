/**
 * A value derived from a tool's or prompt's schemas on first use, with what building it threw kept
 * too: a broken schema fails every use the same way without converting again, and (with `log`) the
 * failure is logged once, naming what failed, when it is first met. `get` builds once and keeps;
 * `transient` builds for one use and keeps nothing but a failure (a list lets schemas given as
 * functions go), so a later `get` builds again.
 */
import { errorFields, libraryLog } from '../telemetry/log.ts'

export class Derived<T> {
  #value: { value: T } | undefined
  #failure: { error: unknown } | undefined

  /**
   * The value if it was built, else `build()`'s result, not kept (for a use that needs it once);
   * a failure is kept as `get`'s is, so later uses fail the same way without building again.
   */
  transient(build: () => T): T {
    if (this.#value) return this.#value.value
    if (this.#failure) throw this.#failure.error
    try {
      return build()
    } catch (error) {
      this.#failure = { error }
      throw error
    }
  }

  /** Whether `get` built and kept the value (a `transient` build keeps nothing). */
  get built(): boolean {
    return this.#value !== undefined
  }

  /** Whether a build failed (its error is kept, and was logged where `get` was given a message). */
  get failed(): boolean {
    return this.#failure !== undefined
  }

  /** The value, built by `build` the first time; a failure is kept, logged once when `log`, and rethrown. */
  get(build: () => T, log?: string): T {
    if (this.#value) return this.#value.value
    if (this.#failure) throw this.#failure.error
    try {
      this.#value = { value: build() }
      return this.#value.value
    } catch (error) {
      this.#failure = { error }
      if (log !== undefined) libraryLog.error(log, errorFields(error))
      throw error
    }
  }
}

/** The entries' definitions, leaving out each whose schema failed (logged once, named, where it failed). */
export function workingDefinitions<D>(entries: readonly { readonly definition: D }[]): D[] {
  const definitions: D[] = []
  for (const entry of entries) {
    try {
      definitions.push(entry.definition)
    } catch {
      // Left out, as lists and search leave it out.
    }
  }
  return definitions
}

/**
 * Build every given definition now; throw one error naming each that fails (their messages name
 * the tool or prompt and the schema), so a test finds what lists would leave out.
 */
export function checkDefinitions(entries: Iterable<{ readonly definition: unknown }>): void {
  const failures: string[] = []
  for (const entry of entries) {
    try {
      entry.definition
    } catch (error) {
      failures.push(error instanceof Error ? error.message : String(error))
    }
  }
  if (failures.length > 0) {
    throw new Error(`${failures.length} schema(s) have no JSON Schema (docs/tools.md "Many tools"):\n- ${failures.join('\n- ')}`)
  }
}
