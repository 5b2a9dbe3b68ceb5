/**
 * The handle `registerTool`, `registerResource` and `registerPrompt` return (SDK
 * `RegisteredTool`…): `enable`, `disable`, `update` and `remove` take the definition out of the
 * core registry or put it back, and each change is announced to listeners (`list_changed`), the
 * registration itself too once the server has served a call. A disabled definition is absent:
 * not listed, as in the SDKs, and a call to it is unknown (-32602 `Unknown tool`, where the SDKs
 * say `Tool … disabled`). Enabled again, it is listed last.
 */

/** What a handle does to the registry for its kind. */
export interface Slot<Config> {
  /** Put the definition into the core registry under `name`. */
  add(name: string, config: Config): void
  /** Take the definition named `name` out of the core registry. */
  drop(name: string, config: Config): void
  /** Tell listeners the list changed; `added`: by a registration (told only once the server has served). */
  announce(added?: boolean): void
  /** The definition's key in the core registry when not its name (a resource's URI or template): `update` moves it when this changes. */
  key?(name: string, config: Config): string
  /**
   * Build the definition named `name` now (its schemas converted, which registration otherwise
   * leaves to first use), so that an `update` with a bad schema throws and is rolled back.
   */
  check?(name: string): void
}

/** The fields every kind's `update` takes besides its own. */
export interface UpdateBase {
  /** A new name; `null` removes the definition. */
  name?: string | null
  enabled?: boolean
}

export class Registered<Config> {
  #name: string
  #config: Config
  readonly #slot: Slot<Config>
  #enabled = true
  #removed = false
  /** Field names of `update` that are stored under another name (SDK `paramsSchema` → `inputSchema`). */
  readonly #aliases: Record<string, string>

  constructor(name: string, config: Config, slot: Slot<Config>, aliases: Record<string, string> = {}) {
    this.#name = name
    this.#config = config
    this.#slot = slot
    this.#aliases = aliases
    slot.add(name, config)
    // As SDK 1.x announces a registration once connected: here once the server has served a call
    // (set-up code that awaits before it registers, at module scope or in a factory, is not told).
    slot.announce(true)
  }

  get enabled(): boolean {
    return this.#enabled
  }

  enable(): void {
    this.update({ enabled: true })
  }

  disable(): void {
    this.update({ enabled: false })
  }

  remove(): void {
    this.update({ name: null })
  }

  #rename(fields: Record<string, unknown>): Partial<Config> {
    const renamed: Record<string, unknown> = {}
    for (const [field, value] of Object.entries(fields)) if (value !== undefined) renamed[this.#aliases[field] ?? field] = value
    return renamed as Partial<Config>
  }

  /**
   * Change the definition: a new name, new fields (merged into the config), enabled or not. A
   * `null` name (or, for a resource, a `null` `uri` or `template`) removes it, as in the SDKs. The
   * new definition is built in place of the old one, its schemas converted at once; if that
   * fails (a bad schema, a name already taken), the old one stays as it was and the error is thrown.
   */
  update(changes: UpdateBase & Record<string, unknown>): void {
    if (this.#removed) return
    const { name, enabled, ...fields } = changes
    const removing = name === null || fields.uri === null || fields.template === null
    const before = { name: this.#name, config: this.#config, enabled: this.#enabled }
    if (removing) {
      if (before.enabled) this.#slot.drop(before.name, before.config)
      this.#removed = true
      this.#enabled = false
    } else {
      const config = { ...before.config, ...this.#rename(fields) }
      const next = { name: name ?? before.name, config, enabled: enabled ?? before.enabled }
      this.#replace(before, next)
      this.#name = next.name
      this.#config = next.config
      this.#enabled = next.enabled
    }
    if (before.enabled || this.#enabled) this.#slot.announce()
  }

  /**
   * Put `next` in place of `before`. Under a new key the new definition is added first, so a key
   * already taken throws with nothing changed (the old one keeps its place in the lists); under
   * the same key the old one must go first, and is put back if the new one fails.
   */
  #replace(before: Definition<Config>, next: Definition<Config>): void {
    const slot = this.#slot
    const keyOf = (definition: Definition<Config>) => slot.key?.(definition.name, definition.config) ?? definition.name
    const moving = before.enabled && next.enabled && keyOf(before) !== keyOf(next)
    const dropFirst = before.enabled && !moving
    if (dropFirst) slot.drop(before.name, before.config)
    let added = false
    try {
      if (next.enabled) {
        slot.add(next.name, next.config)
        added = true
        slot.check?.(next.name)
      }
    } catch (error) {
      if (added) slot.drop(next.name, next.config)
      if (dropFirst) slot.add(before.name, before.config)
      throw error
    }
    if (moving) slot.drop(before.name, before.config)
  }
}

/** A handle's definition at one moment. */
interface Definition<Config> {
  name: string
  config: Config
  enabled: boolean
}
