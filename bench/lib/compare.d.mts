// Types of compare.mjs, for the test that imports it (test/unit/bench-stats.test.ts).
export type Rounds = Record<string, Record<string, number>>[]
export declare function medians(rounds: Rounds, metric: string): Record<string, number>
export declare function ratio(rounds: Rounds, metric: string, a: string, b: string): number
export declare function ratioRange(rounds: Rounds, metric: string, a: string, b: string): [number, number]
export declare function ratioInterval(rounds: Rounds, metric: string, a: string, b: string): [number, number]
export declare function describeRatio(rounds: Rounds, metric: string, a: string, b: string): string
export declare function inTurn<T>(items: T[], round: number): T[]
export declare function alternateLoad(lanes: unknown[], config: unknown, log: (line: string) => void): Promise<Rounds>
export declare function alternateStartup(
  ids: string[],
  scriptOf: (id: string) => string,
  repeats: number,
  log: (line: string) => void,
  variantOf?: (id: string) => string,
): Promise<Rounds>
