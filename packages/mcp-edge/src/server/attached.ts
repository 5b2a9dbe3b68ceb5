/**
 * Data the library keeps about an object, on the object itself under a symbol of its own, where a
 * module-level `WeakMap` keyed by the object would say the same. A `WeakMap`'s entry lives until
 * a full collection even when its key dies young: V8's minor collections keep it, and all it holds
 * through its value, so each server an SDK factory builds per request (and its schemas, its
 * handler) was copied to the old generation and collected there. Measured with a 22-tool server
 * built per request (bench:sdk's `sdk-factory` lane, profiled): 460–500 µs of garbage collection
 * a request with these kept in `WeakMap`s, 20–40 µs with them on the objects. A proxy and its
 * target share their data (the property is the target's). An object that takes
 * no new property (frozen, sealed) keeps its data in a `WeakMap` still.
 */
export class Attached<T> {
  readonly #key: symbol
  /** The data of objects that take no new property, or whose own copy can no longer change (frozen after it was set). */
  readonly #closed = new WeakMap<object, T | undefined>()
  /** Whether `#closed` was ever used: most never are, and a read on a hot path (a call's schema) skips it. */
  #anyClosed = false

  constructor(name: string) {
    this.#key = Symbol(name)
  }

  get(target: object): T | undefined {
    if (this.#anyClosed && this.#closed.has(target)) return this.#closed.get(target)
    // Read first (most reads find nothing), then made sure it is the object's own, not a prototype's.
    const value = (target as Record<symbol, T | undefined>)[this.#key]
    return value !== undefined && Object.hasOwn(target, this.#key) ? value : undefined
  }

  /** Whether `target` has data (`undefined` is none). */
  has(target: object): boolean {
    return this.get(target) !== undefined
  }

  /** Set `target`'s data: not enumerable, so a spread or `Object.assign` of the object leaves it behind. */
  set(target: object, value: T): void {
    // Written over where it is (false where the object was frozen since), else defined; a proxy may
    // refuse either (its trap answers false) though its target takes new properties.
    const kept = Object.hasOwn(target, this.#key)
      ? Reflect.set(target, this.#key, value)
      : Object.isExtensible(target) &&
        Reflect.defineProperty(target, this.#key, { value, writable: true, configurable: true, enumerable: false })
    if (!kept) this.#close(target, value)
    else if (this.#anyClosed) this.#closed.delete(target)
  }

  #close(target: object, value: T | undefined): void {
    this.#anyClosed = true
    this.#closed.set(target, value)
  }

  /** Forget `target`'s data: `undefined` written over it (deleting the property would slow the object's other properties). */
  delete(target: object): void {
    const own = Object.getOwnPropertyDescriptor(target, this.#key)
    // Frozen with its data on it: the data stays there, and this says it is gone.
    if (own && !(own.writable === true && Reflect.set(target, this.#key, undefined))) this.#close(target, undefined)
    else this.#closed.delete(target)
  }
}
