/**
 * The targets, checked against the run's figures: the ratio targets against the median of
 * the per-round ratios (as reported), the size against the build. A missed target says by how
 * much, as a share of the limit and in the unit that has to move (µs of CPU per call at the
 * reference Worker's median, req/s at the SDK's median, KiB).
 */
const KIB = 1024

export function evaluateTargets({ load, bundles }) {
  const cpu = load.summary.edge.cpuUsPerRequest
  const floorCpu = load.summary.hono.cpuUsPerRequest.median
  const sdkCpu = load.summary.sdk.cpuUsPerRequest.median
  const rps = load.summary.edge.rps
  const sdkRps = load.summary.sdk.rps.median
  const gzipKiB = bundles.edge.min.gzipBytes / KIB
  const targets = [
    {
      id: 'cpuVsFloor',
      name: 'CPU per tools/call ≤ 1.25× the bare Hono floor',
      limit: 1.25,
      measured: cpu.vsFloor,
      atMost: true,
      unit: '×',
      gap: `≈ ${((cpu.vsFloor - 1.25) * floorCpu).toFixed(0)} µs/call to cut at the floor's ${floorCpu.toFixed(0)} µs`,
    },
    {
      id: 'cpuVsSdk',
      name: 'CPU per tools/call ≤ 0.5× the SDK Worker',
      limit: 0.5,
      measured: cpu.vsSdk,
      atMost: true,
      unit: '×',
      gap: `≈ ${((cpu.vsSdk - 0.5) * sdkCpu).toFixed(0)} µs/call to cut at the SDK's ${sdkCpu.toFixed(0)} µs`,
    },
    {
      id: 'bundleGzip',
      name: 'template Worker bundle ≤ 45 KiB gzip',
      limit: 45,
      measured: gzipKiB,
      atMost: true,
      unit: ' KiB',
      gap: `${(gzipKiB - 45).toFixed(2)} KiB over`,
    },
    {
      id: 'rpsVsSdk',
      name: 'requests per second ≥ 2× the SDK Worker (same concurrency)',
      limit: 2,
      measured: rps.vsSdk,
      atMost: false,
      unit: '×',
      gap: `≈ ${((2 - rps.vsSdk) * sdkRps).toFixed(0)} req/s short at the SDK's ${sdkRps.toFixed(0)} req/s`,
    },
  ]
  return targets.map((target) => {
    const met = target.atMost ? target.measured <= target.limit : target.measured >= target.limit
    const missedBy = met ? 0 : target.atMost ? target.measured / target.limit - 1 : 1 - target.measured / target.limit
    return { ...target, met, missedBy }
  })
}
