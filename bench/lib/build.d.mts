// Types of build.mjs, for the test that imports it (test/unit/bench-build.test.ts).
export declare function configPath(worker: string): string
export declare function telemetryOffConfig(worker: 'edge' | 'loop-edge'): string
