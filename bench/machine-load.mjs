// How busy the machine is around a measurement, and whether a verdict may be given at all.
//
// A bench on a shared machine measures its own work plus everything else the machine does: a goal that
// passes or misses because of another process is not a verdict. This module reads the machine's CPU
// accounting (/proc/stat on Linux: busy, idle and steal time of all cores; os.cpus() elsewhere), the CPU
// time of this process and of the children it has waited for (/proc/self/stat), and the load average, so
// that a bench can tell how much CPU *other* processes used before and during its runs:
//
//   const probe = await quietProbe();                    // before the runs: 2 s of sampling while idle
//   const before = machineSample(); … run … ; const during = othersBetween(before, machineSample(), ownCpuMs);
//   const state = machineState({ probe, during: [ …per-run others, in cores… ] });
//   verdict(pass, state)                                  // "PASS" | "MISS" | "BUSY — no verdict"
//
// The thresholds are deliberately tight: 2 cores are all the benches have here, and a quarter of one
// core taken by another process moves a req/s median by more than the margin of most goals.
import { readFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { median } from "./stats.mjs";

/** Other processes using at least this share of one core (before or, in the median, during the runs): busy. */
export const OTHERS_BUSY_CORES = 0.25;
/** Hypervisor steal at least this share of the machine's time: busy (the cores are not all ours). */
export const STEAL_BUSY = 0.03;
/** A 1-minute load average above this share of the cores at the start: busy (something ran just before). */
export const LOAD_BUSY_SHARE = 0.5;

const TICK_MS = 10; // USER_HZ = 100 on Linux: /proc/*/stat counts in 10 ms ticks

/** The machine's CPU time so far (ms, all cores): busy, idle (with iowait) and steal. */
function machineTimes() {
  try {
    const line = readFileSync("/proc/stat", "utf8").split("\n", 1)[0];
    const [user, nice, system, idle, iowait, irq, softirq, steal] = line.trim().split(/\s+/).slice(1).map(Number);
    return { busy: (user + nice + system + irq + softirq) * TICK_MS, idle: (idle + iowait) * TICK_MS, steal: (steal ?? 0) * TICK_MS };
  } catch {
    let busy = 0;
    let idle = 0;
    for (const { times } of cpus()) {
      busy += times.user + times.nice + times.sys + times.irq;
      idle += times.idle;
    }
    return { busy, idle, steal: 0 };
  }
}

/** CPU time (ms) of this process and of the children it has waited for (spawnSync, exited forks). */
export function ownCpuMs() {
  const self = process.cpuUsage();
  let children = 0;
  try {
    // /proc/self/stat: the fields after the command's closing parenthesis; cutime and cstime are the 14th and 15th.
    const stat = readFileSync("/proc/self/stat", "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    children = (Number(fields[13]) + Number(fields[14])) * TICK_MS;
  } catch {
    // not Linux: children unknown (counted as others)
  }
  return (self.user + self.system) / 1000 + children;
}

/** A point-in-time reading: machine CPU times, this process's (and its children's) CPU time, wall clock. */
export function machineSample() {
  return { at: performance.now(), ...machineTimes(), own: ownCpuMs() };
}

/**
 * What other processes used between two samples, in cores (1 = one core fully busy), and the steal share.
 * `extraOwnMs`: CPU time of our own processes the samples cannot see (a server child still running, whose
 * CPU time the bench asked it for), subtracted too.
 */
export function othersBetween(a, b, extraOwnMs = 0) {
  const wall = Math.max(1, b.at - a.at);
  const busy = b.busy - a.busy;
  const total = busy + (b.idle - a.idle) + (b.steal - a.steal);
  const others = Math.max(0, busy - (b.own - a.own) - extraOwnMs);
  return { wallMs: wall, othersCores: others / wall, steal: total > 0 ? (b.steal - a.steal) / total : 0 };
}

/** Samples the machine for `ms` while this process idles: what the others use when the bench does nothing. */
export async function quietProbe(ms = 2000) {
  const load = loadavg()[0];
  const a = machineSample();
  await new Promise((resolve) => setTimeout(resolve, ms));
  const b = machineSample();
  return { ...othersBetween(a, b), load, cores: cpus().length };
}


/**
 * Whether the machine was quiet enough for verdicts: the probe before the runs (others, steal, load) and
 * what others used during the runs (the median over runs, and the share of runs above the threshold).
 * Returns { busy, reasons[], summary } — `summary` is the line a bench prints.
 */
export function machineState({ probe, during = [], steals = [] }) {
  const reasons = [];
  const cores = probe?.cores ?? cpus().length;
  if (probe) {
    if (probe.othersCores >= OTHERS_BUSY_CORES) reasons.push(`before the runs other processes used ${probe.othersCores.toFixed(2)} of ${cores} cores`);
    if (probe.steal >= STEAL_BUSY) reasons.push(`steal ${(100 * probe.steal).toFixed(1)} % before the runs`);
    if (probe.load > LOAD_BUSY_SHARE * cores) reasons.push(`load average ${probe.load.toFixed(2)} at the start (> ${(LOAD_BUSY_SHARE * cores).toFixed(1)} on ${cores} cores)`);
  }
  const med = median(during);
  const contended = during.filter((x) => x >= OTHERS_BUSY_CORES).length;
  if (during.length && med >= OTHERS_BUSY_CORES) reasons.push(`during the runs other processes used ${med.toFixed(2)} cores (median of ${during.length} runs)`);
  else if (during.length && contended > during.length / 3) reasons.push(`${contended} of ${during.length} runs shared the machine with other processes (≥ ${OTHERS_BUSY_CORES} core)`);
  const stealMed = median(steals);
  if (steals.length && stealMed >= STEAL_BUSY) reasons.push(`steal ${(100 * stealMed).toFixed(1)} % during the runs`);
  const parts = [];
  if (probe) parts.push(`before: others ${probe.othersCores.toFixed(2)} cores, steal ${(100 * probe.steal).toFixed(1)} %, load ${probe.load.toFixed(2)}`);
  if (during.length) parts.push(`during: others ${med.toFixed(2)} cores (median of ${during.length} runs, max ${Math.max(...during).toFixed(2)}; ${contended} run${contended === 1 ? "" : "s"} ≥ ${OTHERS_BUSY_CORES})`);
  const summary = `machine (${cores} cores) — ${parts.join("; ")} → ${reasons.length ? `BUSY: ${reasons.join("; ")}` : "quiet"}`;
  return {
    busy: reasons.length > 0,
    reasons,
    summary,
    probe: probe && { othersCores: +probe.othersCores.toFixed(3), steal: +probe.steal.toFixed(4), load: probe.load },
    during: { medianOthersCores: +med.toFixed(3), runs: during.length, contendedRuns: contended },
  };
}

/** The verdict a goal gets: PASS or MISS on a quiet machine, none on a busy one. */
export const BUSY_VERDICT = "BUSY — no verdict";
export function verdict(pass, state) {
  if (state?.busy) return BUSY_VERDICT;
  return pass ? "PASS" : "MISS";
}
