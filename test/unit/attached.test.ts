/**
 * server/attached.ts: data kept on an object under a symbol (not in a module-level WeakMap, whose
 * entries V8 keeps through minor collections: bench:sdk's server built per request).
 */
import { describe, expect, it } from 'vitest'
import { Attached } from '../../packages/mcp-edge/src/server/attached.ts'

describe('Attached', () => {
  it('keeps data per object, out of sight of spreads, keys and JSON', () => {
    const kept = new Attached<number>('test.kept')
    const other = new Attached<number>('test.kept')
    const target = { a: 1 }
    expect([kept.get(target), kept.has(target)]).toEqual([undefined, false])
    kept.set(target, 1)
    kept.set(target, 2)
    expect([kept.get(target), kept.has(target), other.get(target)]).toEqual([2, true, undefined])
    expect([{ ...target }, Object.keys(target), JSON.stringify(target)]).toEqual([{ a: 1 }, ['a'], '{"a":1}'])
    kept.delete(target)
    expect([kept.get(target), kept.has(target)]).toEqual([undefined, false])
    kept.set(target, 3)
    expect(kept.get(target)).toBe(3)
  })

  it('keeps the data of a proxy that refuses new properties aside, as a WeakMap kept it', () => {
    const kept = new Attached<string>('test.proxy')
    const target = {}
    const readOnly = new Proxy(target, { defineProperty: () => false, set: () => false })
    kept.set(readOnly, 'x')
    expect([kept.get(readOnly), kept.has(target)]).toEqual(['x', false])
    kept.delete(readOnly)
    expect(kept.has(readOnly)).toBe(false)
  })

  it('keeps the data of an object that takes no new property (frozen, sealed, not extensible) aside', () => {
    const kept = new Attached<string>('test.closed')
    for (const target of [Object.freeze({}), Object.seal({}), Object.preventExtensions(() => {})]) {
      kept.set(target, 'x')
      expect([kept.get(target), kept.has(target)]).toEqual(['x', true])
      kept.delete(target)
      expect(kept.has(target)).toBe(false)
    }
  })

  it('keeps what was set before the object was frozen, and changes it after', () => {
    const kept = new Attached<string>('test.then-frozen')
    const target = {}
    kept.set(target, 'before')
    Object.freeze(target)
    expect(kept.get(target)).toBe('before')
    kept.set(target, 'after')
    expect(kept.get(target)).toBe('after')
    kept.delete(target)
    expect([kept.get(target), kept.has(target)]).toEqual([undefined, false])
    const sealed = {}
    kept.set(sealed, 'before')
    Object.seal(sealed)
    kept.set(sealed, 'after')
    expect(kept.get(sealed)).toBe('after')
    kept.delete(sealed)
    expect(kept.has(sealed)).toBe(false)
  })

  it('reads only an object’s own data, not its prototype’s', () => {
    const kept = new Attached<string>('test.own')
    const parent = {}
    kept.set(parent, 'parent')
    expect(kept.get(Object.create(parent))).toBeUndefined()
  })
})
