/**
 * Data the library keeps about an object, on the object itself under a symbol of its own, where a
 * module-level `WeakMap` keyed by the object would say the same. A `WeakMap`'s entry lives until
 * a full collection even when its key dies young: V8's minor collections keep it, and all it holds
 * through its value, so each server an SDK factory builds per request (and its schemas, its
 * handler) was copied to the old generation and collected there. Measured with a 22-tool server
 * built per request (bench:sdk's `sdk-factory` lane, profiled): 460–500 µs of garbage collection
 * a request with these kept in `WeakMap`s, 18 µs with them on the objects. An object that takes
 * no new property (frozen, sealed) keeps its data in a `WeakMap` still.
 */
export class Attached<T> {
  readonly #key: symbol
  /** The data of objects that take no new property, or whose own copy can no longer change (frozen after it was set). */
  readonly #closed = new WeakMap<object, T | undefined>()

  constructor(name: string) {
    this.#key = Symbol(name)
  }

  get(target: object): T | undefined {
    if (this.#closed.has(target)) return this.#closed.get(target)
    return Object.hasOwn(target, this.#key) ? (target as Record<symbol, T | undefined>)[this.#key] : undefined
  }

  /** Whether `target` has data (`undefined` is none). */
  has(target: object): boolean {
    return this.get(target) !== undefined
  }

  /** Set `target`'s data: not enumerable, so a spread or `Object.assign` of the object leaves it behind. */
  set(target: object, value: T): void {
    const own = Object.getOwnPropertyDescriptor(target, this.#key)
    if (own?.writable) (target as Record<symbol, T>)[this.#key] = value
    else if (!own && Object.isExtensible(target))
      Object.defineProperty(target, this.#key, { value, writable: true, configurable: true, enumerable: false })
    else return void this.#closed.set(target, value)
    this.#closed.delete(target)
  }

  delete(target: object): void {
    const own = Object.getOwnPropertyDescriptor(target, this.#key)
    if (own?.configurable) delete (target as Record<symbol, T>)[this.#key]
    else if (own?.writable) (target as Record<symbol, T | undefined>)[this.#key] = undefined
    // Frozen with its data on it: the data stays there, and this says it is gone.
    else if (own) return void this.#closed.set(target, undefined)
    this.#closed.delete(target)
  }
}
