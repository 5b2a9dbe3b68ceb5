/**
 * Counts of one bench run. `BENCH_QUICK=1` (or `--quick`) shrinks everything for a smoke test
 * (test/bench/smoke.test.ts: every step, in about three minutes on two cores, most of them builds
 * and workerd starts); single figures can be overridden by env (README).
 */
const quick = process.env.BENCH_QUICK === '1' || process.argv.includes('--quick')
const onlyAt = process.argv.indexOf('--only')
const int = (name, fallback) => (process.env[name] ? Number.parseInt(process.env[name], 10) : fallback)
const pick = (full, small) => (quick ? small : full)

export const config = {
  quick,
  connections: int('BENCH_CONNECTIONS', 10),
  rounds: int('BENCH_ROUNDS', pick(15, 2)),
  requests: int('BENCH_REQUESTS', pick(2500, 200)),
  /**
   * Requests per lane before the timed rounds. With 3,000, mcp-edge's first rounds still ran
   * slower than its later ones, and in some runs the SDK's (bench/README.md, "Reading the figures").
   */
  warmupRequests: pick(12_000, 50),
  /** The in-isolate loop (isolate-loop.mjs): calls per lane and round, in slices, rounds, and warm-up calls per lane (as many as 10 rounds). */
  isolateCalls: int('BENCH_ISOLATE_CALLS', pick(2000, 100)),
  isolateWarmup: pick(20_000, 100),
  isolateSlices: pick(5, 2),
  isolateRounds: int('BENCH_ISOLATE_ROUNDS', pick(25, 2)),
  startupRepeats: int('BENCH_STARTUPS', pick(7, 1)),
  /** Rounds of the many-tools load (tools/call and tools/list on five servers). */
  toolRounds: int('BENCH_TOOL_ROUNDS', pick(7, 1)),
  /** tools/list requests per server per round (first page). */
  listRequests: pick(1000, 50),
  heapRepeats: pick(2, 1),
  streamChunks: pick(50_000, 200),
  streamRounds: int('BENCH_STREAM_ROUNDS', pick(10, 1)),
  pacedChunks: pick(200, 10),
  pacedDelayMs: 5,
  firstChunkCalls: pick(30, 3),
  taskCalls: pick(50, 3),
  logChunks: pick(50_000, 500),
  logRepeats: pick(3, 1),
  engineCalls: pick(50, 3),
  engineSteps: pick(200, 10),
  engineRepeats: pick(3, 1),
  /** Memory under load: concurrent streaming calls (each `memoryChunks` chunks, `memoryDelayMs` apart) and open listen streams. */
  memoryCalls: int('BENCH_MEMORY_CALLS', pick(1000, 20)),
  memoryChunks: pick(20, 4),
  memoryDelayMs: pick(500, 50),
  burstChunks: pick(64, 8),
  burstBytes: 4096,
  listeners: int('BENCH_LISTENERS', pick(1000, 20)),
  listenIdleMs: pick(2000, 200),
  stateNodeIterations: pick(10_000, 200),
  stateWorkerdIterations: pick(10_000, 200),
  stateWorkerdRepeats: pick(3, 1),
  /** Listen streams per fan-out point; quick: one point (the smoke run checks the steps, not a curve). */
  fanoutListeners: pick([100, 1000], [40]),
  fanoutRounds: int('BENCH_FANOUT_ROUNDS', pick(30, 3)),
  /** 2025-11-25 sessions with a GET stream each, over both isolates (fanout-2025.mjs). */
  fanoutSessions: int('BENCH_FANOUT_SESSIONS', pick(1000, 50)),
  /** How long the pair idles with the sessions' streams (one keepalive interval, 15 s), and without them a third of that. */
  idleWindowMs: pick(15_000, 600),
  /**
   * How long to wait after the last request before an idle reading: workerd evicts an idle Durable
   * Object (the ledger objects; the hub hibernates) about 10 s after its last use, at a CPU cost
   * that lasts until about 11 s.
   */
  idleSettleMs: pick(12_000, 200),
  /**
   * Fan-out at scale (scale.mjs): listen streams at each point of the curve, 2025 sessions beside
   * them (a share of the listeners), rounds per point, and listeners per hub object (unset: the
   * library's HUB_CAPACITY; quick: 40, so the relays are used).
   */
  scaleListeners: process.env.BENCH_SCALE_LISTENERS
    ? process.env.BENCH_SCALE_LISTENERS.split(',').map((count) => Number.parseInt(count, 10))
    : pick([1000, 2000, 5000, 10_000], [200]),
  /**
   * The same curve with the streams held inside workerd by a driver Worker over service bindings
   * (scale-driver.mjs): no socket per stream, so 10,000 fit under the file limit; 1,000 beside the
   * HTTP point of the same count.
   */
  scaleBindingListeners:
    process.env.BENCH_SCALE_BINDING_LISTENERS !== undefined
      ? process.env.BENCH_SCALE_BINDING_LISTENERS.split(',')
          .filter(Boolean)
          .map((count) => Number.parseInt(count, 10))
      : pick([1000, 5000, 10_000], [100]),
  scaleSessionShare: 0.2,
  scaleRounds: int('BENCH_SCALE_ROUNDS', pick(10, 2)),
  scaleCapacity: process.env.BENCH_SCALE_CAPACITY ? int('BENCH_SCALE_CAPACITY') : quick ? 40 : undefined,
  /**
   * Shared hub sockets (`shareSockets: sharedHubSockets`), as the durable template ships them, so the
   * verdicts judge what users run; `BENCH_SCALE_SHARE=0`: a hub socket per stream (the fan-out
   * Worker's `FANOUT_SHARE_SOCKETS`), as `cloudflareEventHub` without `shareSockets`, in the
   * scale and fan-out steps both (2025 GET streams never share: each has its session's topic).
   */
  scaleShare: process.env.BENCH_SCALE_SHARE !== '0',
  /** Idle session streams in the inspected isolate (heap per stream). */
  heapStreams: int('BENCH_HEAP_STREAMS', pick(500, 20)),
  profileRequests: pick(5000, 300),
  /** Fresh starts merged into each start-up profile (one start holds only a hundred or so samples). */
  profileStarts: pick(5, 2),
  /** 1: always profile; 0: never; unset: when a CPU or throughput target is missed (full runs). */
  profile: process.env.BENCH_PROFILE,
  /** `--only floor`, `peers`, `stream`, `fanout`, `scale` or `bundles` (or BENCH_ONLY=…): build that step's Workers and run it alone. */
  only: onlyAt >= 0 ? process.argv[onlyAt + 1] : process.env.BENCH_ONLY || undefined,
  /** `pipe`: workerd's standard output through Miniflare's pipe, as wrangler dev has it (default: to a file; workerd.mjs). */
  stdout: process.env.BENCH_STDOUT === 'pipe' ? 'pipe' : 'file',
  /** Where results.md and results.json go: bench/ for full runs, the temp dir for quick ones. */
  out: process.env.BENCH_OUT,
}
