// What {base}/rest/about/system-status reports, without HTTP: GeoServer's system-status metrics
// (org.geoserver.system.status: MetricInfo's names, categories, priorities, descriptions and units;
// OSHISystemInfoCollector's values), measured from the operating system and this process when asked,
// never cached. Where a value cannot be read here (no /proc, no sensors) the metric is listed as
// GeoServer's BaseSystemInfoCollector lists it: available false, value "NOT AVAILABLE".
import os from 'node:os'
import fs from 'node:fs/promises'
import v8 from 'node:v8'

/** GeoServer's MetricValue, as its REST converter writes it (the value always as text). */
export interface Metric {
  available: boolean
  description: string
  name: string
  unit: string
  category: string
  identifier: string
  priority: number
  value: string
}

export const NOT_AVAILABLE = 'NOT AVAILABLE'

/** MetricInfo: [name, category, priority, description, unit], in GeoServer's order. */
const METRICS = [
  ['OPERATING_SYSTEM', 'SYSTEM', 1, 'Operating system', ''],
  ['SYSTEM_UPTIME', 'SYSTEM', 2, 'Uptime', 'sec'],
  ['SYSTEM_AVERAGE_LOAD_1', 'SYSTEM', 3, 'System average load 1 minute', ''],
  ['SYSTEM_AVERAGE_LOAD_5', 'SYSTEM', 3, 'System average load 5 minutes', ''],
  ['SYSTEM_AVERAGE_LOAD_15', 'SYSTEM', 3, 'System average load 15 minutes', ''],
  ['PHYSICAL_CPUS', 'CPU', 100, 'Number of physical CPUs', ''],
  ['LOGICAL_CPUS', 'CPU', 101, 'Number of logical CPUs', ''],
  ['RUNNING_PROCESS', 'CPU', 102, 'Number of running process', ''],
  ['RUNNING_THREADS', 'CPU', 103, 'Number of running threads', ''],
  ['CPU_LOAD', 'CPU', 104, 'CPU average load', '%'],
  ['PER_CPU_LOAD', 'CPU', 105, 'CPU load', '%'],
  ['MEMORY_USED', 'MEMORY', 200, 'Used physical memory ', '%'],
  ['MEMORY_TOTAL', 'MEMORY', 201, 'Total physical memory ', 'bytes'],
  ['MEMORY_FREE', 'MEMORY', 201, 'Free physical memory', 'bytes'],
  ['SWAP_USED', 'SWAP', 300, 'Used swap memory', '%'],
  ['SWAP_TOTAL', 'SWAP', 301, 'Total swap memory', 'bytes'],
  ['SWAP_FREE', 'SWAP', 302, 'Free swap memory', 'bytes'],
  ['FILE_SYSTEM_TOTAL_USAGE', 'FILE_SYSTEM', 400, 'File system usage', '%'],
  ['PARTITION_USED', 'FILE_SYSTEM', 500, 'Partition space used', '%'],
  ['PARTITION_TOTAL', 'FILE_SYSTEM', 501, 'Partition total space', 'bytes'],
  ['PARTITION_FREE', 'FILE_SYSTEM', 502, 'Partition free space', 'bytes'],
  ['NETWORK_INTERFACES_SEND', 'NETWORK', 800, 'Network interfaces send', 'bytes'],
  ['NETWORK_INTERFACES_RECEIVED', 'NETWORK', 801, 'Network interfaces received', 'bytes'],
  ['NETWORK_INTERFACE_SEND', 'NETWORK', 900, 'Network interface band usage', 'bytes'],
  ['NETWORK_INTERFACE_RECEIVED', 'NETWORK', 901, 'Network interface available band', 'bytes'],
  ['TEMPERATURE', 'SENSORS', 1200, 'CPU temperature', '°C'],
  ['VOLTAGE', 'SENSORS', 1201, 'CPU voltage', 'V'],
  ['FAN_SPEED', 'SENSORS', 1202, 'Fan speed', 'rpm'],
  ['GEOSERVER_CPU_USAGE', 'GEOSERVER', 1300, 'GeoServer CPU usage', '%'],
  ['GEOSERVER_THREADS', 'GEOSERVER', 1301, 'GeoServer threads', ''],
  ['GEOSERVER_JVM_MEMORY_USAGE', 'GEOSERVER', 1302, 'GeoServer JVM memory usage', '%']
] as const

export type MetricName = typeof METRICS[number][0]
export const METRIC_NAMES: readonly MetricName[] = METRICS.map((m) => m[0])

/** One reading of a metric: a value, or several (per CPU, per partition, per interface). */
type Reading = number | string | undefined | Array<{ value: number | string, identifier: string, description: string }>

async function readText (file: string): Promise<string | undefined> {
  try { return await fs.readFile(file, 'utf8') } catch { return undefined }
}

/** /proc/meminfo in bytes, by key (Linux). */
async function meminfo (): Promise<Record<string, number> | undefined> {
  const text = await readText('/proc/meminfo')
  if (text === undefined) return undefined
  const out: Record<string, number> = {}
  for (const line of text.split('\n')) {
    const m = /^(\w+):\s+(\d+)(?:\s+kB)?/.exec(line)
    if (m) out[m[1]] = Number(m[2]) * (line.includes('kB') ? 1024 : 1)
  }
  return out
}

/** Bytes received and sent per network interface, loopback left out (Linux /proc/net/dev). */
async function networkCounters (): Promise<Array<{ name: string, received: number, sent: number }> | undefined> {
  const text = await readText('/proc/net/dev')
  if (text === undefined) return undefined
  return text.split('\n').slice(2).map((l) => l.trim()).filter((l) => l !== '').map((l) => {
    const [name, rest] = l.split(':')
    const f = rest.trim().split(/\s+/).map(Number)
    return { name: name.trim(), received: f[0], sent: f[8] }
  }).filter((n) => n.name !== 'lo')
}

/** Physical cores: distinct (physical id, core id) pairs of /proc/cpuinfo (Linux). */
async function physicalCores (): Promise<number | undefined> {
  const text = await readText('/proc/cpuinfo')
  if (text === undefined) return undefined
  const cores = new Set<string>()
  for (const block of text.split(/\n\s*\n/)) {
    const phys = /physical id\s*:\s*(\d+)/.exec(block)?.[1] ?? '0'
    const core = /core id\s*:\s*(\d+)/.exec(block)?.[1]
    if (core !== undefined) cores.add(`${phys}:${core}`)
  }
  return cores.size > 0 ? cores.size : undefined
}

type CpuTimes = Array<{ busy: number, total: number }>
const cpuTimes = (): CpuTimes => os.cpus().map((c) => {
  const t = c.times
  const total = t.user + t.nice + t.sys + t.idle + t.irq
  return { busy: total - t.idle, total }
})
/** The share of time busy between two readings, per CPU (0..1); since boot when nothing changed. */
const loadBetween = (before: CpuTimes, now: CpuTimes): number[] => now.map((n, i) => {
  const b = before[i] ?? { busy: 0, total: 0 }
  const dt = n.total - b.total
  return dt > 0 ? (n.busy - b.busy) / dt : n.total > 0 ? n.busy / n.total : 0
})

export interface SystemStatusDeps {
  /** The data directory: its partition is the one reported (GeoServer: every file store). */
  dataDir: string
  /** Milliseconds now (a seam for tests; default Date.now). */
  now?: () => number
}

export function createSystemStatus (deps: SystemStatusDeps) {
  const now = deps.now ?? Date.now
  // As OSHISystemInfoCollector keeps the previous ticks: each reading covers the time since the last.
  let lastCpu = cpuTimes()
  let lastProcess = { usage: process.cpuUsage(), at: now() }

  const read = async (): Promise<Partial<Record<MetricName, Reading>>> => {
    const [mem, net, cores, loadavg, threads, statfs, temperature] = await Promise.all([
      meminfo(), networkCounters(), physicalCores(), readText('/proc/loadavg'), readText('/proc/self/status'),
      fs.statfs(deps.dataDir).catch(() => undefined), readText('/sys/class/thermal/thermal_zone0/temp')
    ])
    const cpuNow = cpuTimes()
    const perCpu = loadBetween(lastCpu, cpuNow)
    lastCpu = cpuNow
    const at = now()
    const usage = process.cpuUsage(lastProcess.usage)
    const elapsedMs = Math.max(1, at - lastProcess.at)
    lastProcess = { usage: process.cpuUsage(), at }
    const logical = os.cpus().length
    const [l1, l5, l15] = os.loadavg()
    const memTotal = os.totalmem()
    const memFree = mem?.MemAvailable ?? os.freemem()
    const entities = loadavg ? /\d+\/(\d+)/.exec(loadavg)?.[1] : undefined
    let processes: number | undefined
    try { processes = (await fs.readdir('/proc')).filter((d) => /^\d+$/.test(d)).length } catch {}
    const ownThreads = threads ? /^Threads:\s+(\d+)/m.exec(threads)?.[1] : undefined
    const heap = v8.getHeapStatistics()
    const partition = statfs && { total: statfs.blocks * statfs.bsize, free: statfs.bavail * statfs.bsize }
    const percent = (used: number, total: number) => total > 0 ? used / total * 100 : 0
    return {
      OPERATING_SYSTEM: `${os.type()} ${os.release()}`,
      SYSTEM_UPTIME: Math.floor(os.uptime()),
      // OSHI reports a load average only when it is above 0 (none on Windows).
      SYSTEM_AVERAGE_LOAD_1: l1 > 0 ? l1 : undefined,
      SYSTEM_AVERAGE_LOAD_5: l5 > 0 ? l5 : undefined,
      SYSTEM_AVERAGE_LOAD_15: l15 > 0 ? l15 : undefined,
      PHYSICAL_CPUS: cores ?? logical,
      LOGICAL_CPUS: logical,
      RUNNING_PROCESS: processes,
      RUNNING_THREADS: entities === undefined ? undefined : Number(entities),
      CPU_LOAD: perCpu.length > 0 ? perCpu.reduce((a, b) => a + b, 0) / perCpu.length * 100 : undefined,
      PER_CPU_LOAD: perCpu.map((l, i) => ({ value: l * 100, identifier: `CPU ${i + 1}`, description: `CPU ${i + 1} load` })),
      MEMORY_USED: percent(memTotal - memFree, memTotal),
      MEMORY_TOTAL: memTotal,
      MEMORY_FREE: memFree,
      SWAP_USED: mem?.SwapTotal === undefined ? undefined : percent(mem.SwapTotal - (mem.SwapFree ?? 0), mem.SwapTotal),
      SWAP_TOTAL: mem?.SwapTotal,
      SWAP_FREE: mem?.SwapFree,
      FILE_SYSTEM_TOTAL_USAGE: partition ? percent(partition.total - partition.free, partition.total) : undefined,
      PARTITION_USED: partition ? [{ value: percent(partition.total - partition.free, partition.total), identifier: 'data directory', description: 'Partition [data directory] used space' }] : undefined,
      PARTITION_TOTAL: partition ? [{ value: partition.total, identifier: 'data directory', description: 'Partition [data directory] total space' }] : undefined,
      PARTITION_FREE: partition ? [{ value: partition.free, identifier: 'data directory', description: 'Partition [data directory] free space' }] : undefined,
      NETWORK_INTERFACES_SEND: net ? net.reduce((a, n) => a + n.sent, 0) : undefined,
      NETWORK_INTERFACES_RECEIVED: net ? net.reduce((a, n) => a + n.received, 0) : undefined,
      NETWORK_INTERFACE_SEND: net?.map((n) => ({ value: n.sent, identifier: n.name, description: `Network interface [${n.name}] data sent` })),
      NETWORK_INTERFACE_RECEIVED: net?.map((n) => ({ value: n.received, identifier: n.name, description: `Network interface [${n.name}] data received` })),
      TEMPERATURE: temperature !== undefined && /^\d+/.test(temperature) ? Number(temperature.trim()) / 1000 : undefined,
      GEOSERVER_CPU_USAGE: (usage.user + usage.system) / 1000 / elapsedMs * 100 / Math.max(1, logical),
      GEOSERVER_THREADS: ownThreads === undefined ? undefined : Number(ownThreads),
      GEOSERVER_JVM_MEMORY_USAGE: percent(heap.used_heap_size, heap.heap_size_limit)
    }
  }

  return {
    /** Every metric, in MetricInfo's order, measured now. */
    async metrics (): Promise<Metric[]> {
      const values = await read()
      const out: Metric[] = []
      // MetricValue's fields in the order XStream writes them.
      const metric = (available: boolean, description: string, name: string, unit: string, category: string, identifier: string, priority: number, value: string): Metric =>
        ({ available, description, name, unit, category, identifier, priority, value })
      for (const [name, category, priority, description, unit] of METRICS) {
        const v = values[name]
        if (Array.isArray(v) && v.length > 0) {
          v.forEach((one, i) => out.push(metric(true, one.description, name, unit, category, one.identifier, priority + (name === 'PER_CPU_LOAD' ? i : (i + 1) * 3), String(one.value))))
        } else if (v === undefined || Array.isArray(v) || (typeof v === 'number' && !Number.isFinite(v))) {
          out.push(metric(false, description, name, unit, category, name, priority, NOT_AVAILABLE))
        } else {
          out.push(metric(true, description, name, unit, category, name, priority, String(v)))
        }
      }
      return out
    }
  }
}
export type SystemStatus = ReturnType<typeof createSystemStatus>
