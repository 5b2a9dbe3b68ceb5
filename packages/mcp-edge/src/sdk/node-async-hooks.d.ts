// The one Node API the adapter uses (request-store.ts), typed here so the library needs no
// @types/node; Workers provide it with the nodejs_compat or nodejs_als compatibility flag.
declare module 'node:async_hooks' {
  export class AsyncLocalStorage<T> {
    run<R>(store: T, fn: () => R): R
    getStore(): T | undefined
  }
}
