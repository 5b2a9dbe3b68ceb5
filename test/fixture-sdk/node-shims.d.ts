// Node's names that the official SDKs' and agents' declarations use (a Worker with nodejs_compat
// has them at run time). Users' projects take them from @types/node with skipLibCheck on; with
// skipLibCheck off, @types/node's globals clash with the Workers runtime types, so the put-back
// programs of test/unit/sdk-fixture-types.test.ts get these few instead. Types only.
type Buffer = Uint8Array

declare module 'node:http' {
  export type IncomingMessage = unknown
  export type ServerResponse = unknown
}

declare module 'node:async_hooks' {
  export class AsyncLocalStorage<T> {
    run<R>(store: T, fn: () => R): R
    getStore(): T | undefined
  }
}
