#!/usr/bin/env node
// SPDX-License-Identifier: GPL-2.0 OR MIT
//
// crosscheck-perfetto.mjs FXT_SCHED FILE.fxt
//
// Compares fxt-sched with Perfetto's trace_processor on the same trace:
//   1. every latency interval: fxt-sched's (latency --intervals) against
//      Perfetto's thread_state rows. A Perfetto "waiting" interval is a run
//      of consecutive rows of one thread in state 'W' (after a wakeup) or
//      'R' (after a preemption) ending where its next 'Running' row starts;
//      consecutive rows are merged (Perfetto may open a new row for a second
//      wakeup; fxt-sched keeps the clock of the first). Matched by (tid, end).
//   2. per-thread runtime: fxt-sched summary against sum(dur) of the
//      closed sched rows of that tid (idle excluded).
// Both sides' numbers are printed. Tolerance: 1 ns per interval.
// Prints TAP; exit 0 only if everything agrees.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const { loadTrace } = await import(path.join(HERE, '..', '..', 'scripts', 'perfetto', 'tp.mjs'));

const [fxtSched, file] = process.argv.slice(2);
if (!fxtSched || !file) {
  console.error('usage: crosscheck-perfetto.mjs FXT_SCHED FILE.fxt');
  process.exit(2);
}

let n = 0, failed = 0;
const ok = (cond, name) => {
  n++;
  if (!cond) failed++;
  console.log(`${cond ? 'ok' : 'not ok'} ${n} - ${name}`);
  return cond;
};
const diag = (s) => console.log(`# ${s}`);

function run(args) {
  return execFileSync(fxtSched, args, { encoding: 'utf8', maxBuffer: 1 << 30 });
}

function pct(sorted, num, den) {
  if (!sorted.length) return 0;
  let rank = Math.ceil((sorted.length * num) / den);
  if (rank < 1) rank = 1;
  return sorted[Math.min(rank, sorted.length) - 1];
}
function pctLine(vals) {
  const s = [...vals].sort((a, b) => a - b);
  return `count ${s.length} p50 ${pct(s, 50, 100)} p90 ${pct(s, 90, 100)} ` +
    `p99 ${pct(s, 99, 100)} p99.9 ${pct(s, 999, 1000)} max ${s.length ? s[s.length - 1] : 0}`;
}

// --- fxt-sched side
const ours = new Map();   // `${tid}:${end}` -> {kind, start, end, lat}
for (const line of run(['latency', file, '--intervals']).trim().split('\n').slice(1)) {
  if (!line) continue;
  const [kind, tid, , , start, end, lat] = line.split(',');
  ours.set(`${tid}:${end}`, { kind, tid: Number(tid), start: BigInt(start), end: BigInt(end), lat: BigInt(lat) });
}
const summary = JSON.parse(run(['summary', file, '--json']));
const ourLat = JSON.parse(run(['latency', file, '--json']));

// --- Perfetto side
const tp = await loadTrace(file);
const problems = await tp.importErrors();
const rows = await tp.query(`
  select t.tid as tid, s.ts as ts, s.dur as dur, s.state as state
  from thread_state s join thread t using(utid)
  where t.tid != 0
  order by s.utid, s.ts`);
const sched = await tp.query(`
  select t.tid as tid, sum(s.dur) as runtime, count(*) as slices
  from sched s join thread t using(utid)
  where s.dur > 0 and t.tid != 0 group by t.tid`);
tp.close();

ok(problems.length === 0, `trace_processor imports ${file} without errors`);
for (const p of problems) diag(JSON.stringify(p));

const theirs = new Map();
let cur = null;   // the open waiting interval of the thread being scanned
let prevTid = null;
for (const r of rows) {
  const tid = Number(r.tid), ts = BigInt(r.ts), dur = BigInt(r.dur);
  if (tid !== prevTid) { cur = null; prevTid = tid; }
  if (r.state === 'W' || r.state === 'R' || r.state === 'R+') {
    if (!cur || cur.end !== ts) cur = { kind: r.state === 'W' ? 'wakeup' : 'preempt', tid, start: ts };
    cur.end = dur >= 0n ? ts + dur : -1n;
  } else if (r.state === 'Running') {
    if (cur && cur.end === ts) theirs.set(`${tid}:${ts}`, { ...cur, lat: ts - cur.start });
    cur = null;
  } else {
    cur = null;
  }
}

// 1. intervals
let matched = 0, maxDiff = 0n, kindDiff = 0;
const onlyOurs = [], onlyTheirs = [], differ = [];
for (const [k, o] of ours) {
  const t = theirs.get(k);
  if (!t) { onlyOurs.push(o); continue; }
  const d = o.lat > t.lat ? o.lat - t.lat : t.lat - o.lat;
  if (d > maxDiff) maxDiff = d;
  if (d > 1n) differ.push([o, t]);
  else matched++;
  if (o.kind !== t.kind) kindDiff++;
}
for (const [k, t] of theirs) if (!ours.has(k)) onlyTheirs.push(t);
for (const kind of ['wakeup', 'preempt']) {
  diag(`${kind} latency, fxt-sched: ${pctLine([...ours.values()].filter(x => x.kind === kind).map(x => Number(x.lat)))}`);
  diag(`${kind} latency, Perfetto:  ${pctLine([...theirs.values()].filter(x => x.kind === kind).map(x => Number(x.lat)))}`);
  const j = ourLat[kind === 'wakeup' ? 'wakeup_latency_ns' : 'preempt_latency_ns'];
  diag(`${kind} latency, fxt-sched --json: count ${j.count} p50 ${j.p50} p90 ${j.p90} p99 ${j.p99} p99.9 ${j.p999} max ${j.max}${j.exact ? '' : ' (bucketed, <= 0.4% high)'}`);
}
diag(`intervals: fxt-sched ${ours.size}, Perfetto ${theirs.size}, equal within 1 ns ${matched}, ` +
  `max difference ${maxDiff} ns, kind differs ${kindDiff}, only fxt-sched ${onlyOurs.length}, only Perfetto ${onlyTheirs.length}`);
for (const o of onlyOurs.slice(0, 5)) diag(`  only fxt-sched: ${o.kind} tid ${o.tid} ${o.start}..${o.end} (${o.lat} ns)`);
for (const t of onlyTheirs.slice(0, 5)) diag(`  only Perfetto: ${t.kind} tid ${t.tid} ${t.start}..${t.end} (${t.lat} ns)`);
for (const [o, t] of differ.slice(0, 5)) diag(`  differ: tid ${o.tid} ending ${o.end}: fxt-sched ${o.kind} from ${o.start}, Perfetto ${t.kind} from ${t.start}`);
ok(ours.size > 0, 'fxt-sched found latency intervals');
ok(onlyOurs.length === 0 && onlyTheirs.length === 0 && differ.length === 0,
  'every latency interval agrees with Perfetto thread_state within 1 ns');
ok(kindDiff === 0, 'wakeup vs preemption classification agrees (W vs R)');

// 2. runtime
const ourRt = new Map(summary.threads.map(t => [t.tid, t]));
let rtBad = 0;
diag(`${'tid'.padStart(8)} ${'name'.padEnd(16)} ${'fxt-sched ns'.padStart(16)} ${'Perfetto ns'.padStart(16)} slices`);
for (const s of sched) {
  const tid = Number(s.tid), theirRt = BigInt(s.runtime), slices = BigInt(s.slices);
  const o = ourRt.get(tid);
  const ourV = o ? BigInt(o.runtime_ns) : 0n;
  const d = ourV > theirRt ? ourV - theirRt : theirRt - ourV;
  if (d > slices) rtBad++;
  diag(`${String(tid).padStart(8)} ${(o ? o.name : '?').padEnd(16)} ${String(ourV).padStart(16)} ${String(theirRt).padStart(16)} ${slices}${d > slices ? '  MISMATCH' : ''}`);
}
for (const o of summary.threads)
  if (o.runtime_ns > 0 && !sched.some(s => Number(s.tid) === o.tid)) {
    rtBad++;
    diag(`tid ${o.tid}: fxt-sched runtime ${o.runtime_ns}, Perfetto has no sched rows`);
  }
ok(sched.length > 0 && rtBad === 0, 'per-thread runtime agrees with Perfetto sched (within 1 ns per slice)');
console.log(`1..${n}`);
process.exit(failed ? 1 : 0);
