// Types of profile-analyse.mjs, for the test that imports it (test/unit/bench-profile.test.ts).
export interface CpuProfile {
  nodes: {
    id: number
    callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number }
    children?: number[]
  }[]
  samples: number[]
  timeDeltas: number[]
  startTime: number
  endTime: number
}
export interface Ranked {
  function: string
  ms: number
  share: number
}
export declare const LIBRARY: string
export declare function mergeProfiles(profiles: CpuProfile[]): CpuProfile
export declare function sampledFromTheStart(profile: CpuProfile, scriptPath: string): boolean
export declare function analyse(
  profile: CpuProfile,
  scriptPath: string,
): { totalMs: number; moduleMs: number; areas: Ranked[]; srcSelf: Ranked[]; srcCharged: Ranked[]; all: Ranked[] }
