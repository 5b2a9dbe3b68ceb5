// Types of workerd-esbuild.mjs, for vitest.config.ts.
export declare const WORKERD_BUILD: {
  readonly bundle: true
  readonly format: 'esm'
  readonly platform: 'neutral'
  readonly target: 'es2022'
  readonly conditions: string[]
  readonly mainFields: string[]
  readonly logLevel: 'error'
}
