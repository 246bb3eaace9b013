#!/usr/bin/env node
// One cold run in this fresh Node process: import a reader's library, init it, then three
// reads of the same bytes, each step timed, then warm reads. Started by bench/coldwarm.mjs:
//   node bench/cold-child.mjs '{"format":"tsfile","reader":"arrowsmith","file":"…","case":{…},"opts":{…}}'
// Prints one JSON line: { steps: { import, init, read1, read2, read3 }, rows, warm: [ms…], memory, tableAt } where each
// step is { ms, cpu, pcpu, faults } (cpu: this thread's CPU ms, pcpu: the process's,
// faults: the process's minor page faults) and tableAt the clock time (epoch ms) read 1 ended. Nothing but node: builtins is imported before the timed steps.
import { readFileSync } from 'node:fs';
import { READERS, warmReads } from './readers.mjs';

// What a timed step costs in this Node process: wall ms, the calling thread's CPU ms and the
// process's minor page faults (first touches of fresh memory: on a VM each costs
// microseconds, so a read that writes into fresh pages pays for them).
// CPU comes from /proc/self/task/<tid>/schedstat (ns, this thread only: background compile
// threads excluded) where Linux has it, else process.cpuUsage() (all threads).
const schedstat = `/proc/self/task/${process.pid}/schedstat`;
let threadCpu;
try {
  readFileSync(schedstat, 'utf8');
  threadCpu = () => Number(readFileSync(schedstat, 'utf8').split(' ')[0]) / 1e6;
} catch {
  threadCpu = () => processCpu();
}

// `pcpu`: the whole process's CPU ms (V8's background compile and GC threads included).
const processCpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e3;
};

const probe = {
  start: () => ({ faults: process.resourceUsage().minorPageFault, cpu: threadCpu(), pcpu: processCpu(), t: performance.now() }),
  end: (s) => {
    const ms = performance.now() - s.t;
    return { ms, cpu: threadCpu() - s.cpu, pcpu: processCpu() - s.pcpu, faults: process.resourceUsage().minorPageFault - s.faults };
  },
};

const spec = JSON.parse(process.argv[2]);
const reader = READERS[spec.format]?.[spec.reader];
if (!reader) throw new Error(`cold-child: no reader ${spec.reader} for ${spec.format}`);
const bytes = new Uint8Array(readFileSync(spec.file));
const steps = {};
let lib;
let rows;
let tableAt;
const timed = async (name, f) => {
  const p = probe.start();
  const out = await f();
  steps[name] = probe.end(p);
  return out;
};
try {
  lib = await timed('import', () => reader.load(spec.opts ?? {}));
  await timed('init', () => reader.init(lib, spec.opts ?? {}));
  let memory;
  for (const k of [1, 2, 3]) {
    rows = await timed(`read${k}`, () => reader.read(lib, bytes, spec.case ?? {}));
    // The clock time of the first table, for the parent's "process start → table".
    if (k === 1) tableAt = performance.timeOrigin + performance.now();
    // Wasm memory after read 1 (Arrowsmith: its `memory()`, bytes per format module).
    if (k === 1 && typeof lib?.memory === 'function') memory = lib.memory()[spec.format];
  }
  const warm = await warmReads(reader, lib, bytes, spec);
  process.stdout.write(JSON.stringify({ steps, rows, warm, memory, tableAt }) + '\n');
} catch (e) {
  process.stdout.write(JSON.stringify({ steps, error: String(e?.message ?? e).slice(0, 200) }) + '\n');
}
process.exit(0);
