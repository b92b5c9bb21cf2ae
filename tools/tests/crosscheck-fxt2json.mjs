#!/usr/bin/env node
// SPDX-License-Identifier: GPL-2.0 OR MIT
//
// crosscheck-fxt2json.mjs FXT2JSON FXT_SCHED FILE.fxt
//
// fxt2json's output as Perfetto's trace_processor reads it, against
// fxt-sched on the same trace: what a user sees in the Perfetto UI after
// converting. fxt2json and fxt-sched share the code that tells a reused
// tid's threads apart (tools/analysis.c); this checks that the JSON gives
// each of those threads a thread of its own in Perfetto, not one track
// that two threads share:
//   1. trace_processor imports the JSON without import errors;
//   2. Perfetto's threads that ran (a "running" slice on their track) are,
//      as a multiset of (pid, name, runtime), fxt-sched summary's threads
//      that ran. A run cut by a hole in its CPU's records ends at the
//      hole's start in both. A run still going when the trace ends is
//      fxt2json's slice to the last scheduling timestamp (end_state
//      "unknown"), and counted up to that same end in fxt-sched's runtime.
// Prints TAP; exit 0 only if both hold.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const { loadTrace } = await import(path.join(HERE, '..', '..', 'scripts', 'perfetto', 'tp.mjs'));

const [fxt2json, fxtSched, file] = process.argv.slice(2);
if (!fxt2json || !fxtSched || !file) {
  console.error('usage: crosscheck-fxt2json.mjs FXT2JSON FXT_SCHED FILE.fxt');
  process.exit(2);
}

const CPU_PID = 2147483647;	// fxt2json's pseudo process of CPU tracks
let n = 0, failed = 0;
function check(ok, what, detail) {
  n++;
  console.log(`${ok ? 'ok' : 'not ok'} ${n} - ${what}`);
  if (!ok) {
    failed++;
    for (const line of String(detail || '').split('\n'))
      console.log(`#   ${line}`);
  }
}

const key = (pid, name, runtime) => `${pid}\t${name}\t${runtime}`;
function multiset(keys) {
  const m = new Map();
  for (const k of keys) m.set(k, (m.get(k) || 0) + 1);
  return m;
}
function difference(a, b) {
  const out = [];
  for (const [k, v] of a) {
    const w = b.get(k) || 0;
    if (v > w) out.push(`${k} (x${v - w})`);
  }
  return out;
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fxt2json-crosscheck.'));
try {
  const json = path.join(dir, 'out.json');
  execFileSync(fxt2json, [file, '-o', json], { stdio: ['ignore', 'ignore', 'inherit'] });
  const summary = JSON.parse(execFileSync(fxtSched, ['summary', '--json', file],
    { maxBuffer: 1 << 28 }).toString());
  const ours = summary.threads.filter((t) => t.runtime_ns > 0)
    .map((t) => key(t.pid, t.name, t.runtime_ns));

  const tp = await loadTrace(json);
  const problems = await tp.importErrors();
  check(problems.length === 0, `trace_processor imports fxt2json's JSON of ${path.basename(file)} without errors`,
    JSON.stringify(problems));
  // A thread's pid: its process's; a thread with no process is in pid 0
  // in fxt2json's JSON, which Perfetto may keep without a process.
  const rows = await tp.query(`
    with running as (
      select s.ts, s.dur, tt.utid
      from slice s join thread_track tt on s.track_id = tt.id
      where s.name = 'running')
    select t.utid, coalesce(p.pid, 0) as pid, coalesce(t.name, '') as name,
           sum(r.dur) as runtime
    from running r join thread t using (utid) left join process p using (upid)
    where coalesce(p.pid, 0) != ${CPU_PID}
    group by t.utid having runtime > 0`);
  tp.close();
  const theirs = rows.map((r) => key(r.pid, r.name, r.runtime));
  const a = multiset(ours), b = multiset(theirs);
  const onlyOurs = difference(a, b), onlyTheirs = difference(b, a);
  console.log(`# ${ours.length} threads ran by fxt-sched, ${theirs.length} by Perfetto's reading of the JSON`);
  check(onlyOurs.length === 0 && onlyTheirs.length === 0,
    `each thread fxt-sched tells apart is a Perfetto thread of its own, with its process, name and runtime (${ours.length} threads)`,
    `(pid, name, runtime) only in fxt-sched: ${onlyOurs.slice(0, 8).join('; ') || 'none'}\n` +
    `only in Perfetto: ${onlyTheirs.slice(0, 8).join('; ') || 'none'}`);
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
console.log(`1..${n}`);
process.exit(failed ? 1 : 0);
