#!/usr/bin/env node
// SPDX-License-Identifier: GPL-2.0
//
// check-trace.mjs - does Perfetto's trace_processor see what the workload did?
//
//   node scripts/perfetto/check-trace.mjs FILE.fxt EXPECT.json
//
// EXPECT.json (written by the in-VM end-to-end test):
//   {"pid": 123, "comm": "fxt-pingpong",
//    "threads": [{"tid": 124, "name": "ping", "cpu": 0},
//                {"tid": 125, "name": "pong", "cpu": 1}],
//    "min_switches": 100}
// "comm" and each thread's "cpu" are optional; "min_switches" defaults to 1.
//
// Prints TAP version 13 on stdout; exit 0 only if every test passes
// (1 = some test failed or the trace did not load, 2 = usage/EXPECT error).
// What each test asks of trace_processor v55.3 is in README.md next to this
// file ("check-trace.mjs").

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadTrace, IMPORT_ERRORS_SQL, TP_VERSION } from './tp.mjs';
import { Tap } from './tap.mjs';

const USAGE = `usage: node scripts/perfetto/check-trace.mjs [--verbose] FILE.fxt EXPECT.json

Load FILE.fxt into Perfetto trace_processor ${TP_VERSION} and check it against
EXPECT.json, printing TAP version 13. EXPECT.json:
  {"pid": 123, "comm": "fxt-pingpong",
   "threads": [{"tid": 124, "name": "ping", "cpu": 0},
               {"tid": 125, "name": "pong", "cpu": 1}],
   "min_switches": 100}
("comm", "cpu" optional; "min_switches" defaults to 1)

Tests: the trace loads; no stats row with severity error/data_loss and a
non-zero value; the process has the pid (and comm); per thread: name, pid,
>= min_switches sched rows, sched rows on the expected cpu (at most
2 + 1% elsewhere), runnable-after-wakeup rows in thread_state, and a waker
(thread_state.waker_utid) that is another listed thread; tid 0 (idle) never
shows up as one thread on several CPUs.

options:
  --verbose    copy trace_processor's log lines to stderr
  -h, --help   this text

exit status: 0 all tests pass, 1 a test failed or the trace did not load,
2 usage or EXPECT.json error.`;

// Linux truncates comm to 15 bytes (TASK_COMM_LEN 16).
const TASK_COMM_LEN = 16;

class ExpectError extends Error {}

function readExpect(file) {
  let e;
  try {
    e = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    throw new ExpectError(`cannot read ${file}: ${err.message}`);
  }
  const isInt = (v) => Number.isSafeInteger(v) && v >= 0;
  if (!e || typeof e !== 'object') throw new ExpectError(`${file}: not a JSON object`);
  if (!isInt(e.pid) || e.pid === 0) throw new ExpectError(`${file}: "pid" must be a positive integer`);
  if (e.comm !== undefined && typeof e.comm !== 'string') throw new ExpectError(`${file}: "comm" must be a string`);
  if (e.min_switches === undefined) e.min_switches = 1;
  if (!isInt(e.min_switches)) throw new ExpectError(`${file}: "min_switches" must be a non-negative integer`);
  if (!Array.isArray(e.threads) || e.threads.length === 0) {
    throw new ExpectError(`${file}: "threads" must be a non-empty array`);
  }
  const seen = new Set();
  e.threads.forEach((t, i) => {
    if (!t || typeof t !== 'object') throw new ExpectError(`${file}: threads[${i}] is not an object`);
    if (!isInt(t.tid) || t.tid === 0) throw new ExpectError(`${file}: threads[${i}].tid must be a positive integer`);
    if (typeof t.name !== 'string') throw new ExpectError(`${file}: threads[${i}].name must be a string`);
    if (t.cpu !== undefined && !isInt(t.cpu)) throw new ExpectError(`${file}: threads[${i}].cpu must be a non-negative integer`);
    if (seen.has(t.tid)) throw new ExpectError(`${file}: tid ${t.tid} listed twice`);
    seen.add(t.tid);
  });
  return e;
}

function commMatches(actual, expected) {
  if (actual === expected) return true;
  // The expected name may be the untruncated one.
  return expected.length >= TASK_COMM_LEN && actual === expected.slice(0, TASK_COMM_LEN - 1);
}

const j = (v) => JSON.stringify(v);

export async function checkTrace(traceFile, expect, { verbose = false } = {}) {
  const tap = new Tap();
  let tp;
  try {
    tp = await loadTrace(traceFile, { verbose });
  } catch (e) {
    const diag = [e.message];
    const tail = (e.stderr || []).slice(-10);
    if (tail.length) diag.push('trace_processor log:', ...tail);
    tap.test(false, `trace loads in trace_processor ${TP_VERSION}`, diag);
    return tap;
  }
  try {
    await runChecks(tp, tap, traceFile, expect);
  } catch (e) {
    tap.test(false, 'checks ran to completion', [e.message]);
  } finally {
    tp.close();
  }
  return tap;
}

async function runChecks(tp, tap, traceFile, expect) {
  const q = (sql) => tp.query(sql);
  const [tot] = await q('select count(*) as n, count(distinct cpu) as cpus from sched');
  tap.test(true, `trace loads in trace_processor ${TP_VERSION}`,
    [`${traceFile}: ${tot.n} sched rows on ${tot.cpus} cpu(s)`]);

  // 1. Import problems.
  const errs = await q(IMPORT_ERRORS_SQL);
  tap.test(errs.length === 0, "stats has no severity 'error'/'data_loss' row with value > 0",
    errs.map((r) => `${r.name}${r.idx === null ? '' : `[${r.idx}]`} severity=${r.severity} value=${r.value}` +
      (r.description ? ` (${r.description})` : '')));

  // 2. The process.
  const procs = await q(`select upid, pid, name from process where pid = ${expect.pid}`);
  if (expect.comm !== undefined) {
    const named = procs.filter((p) => p.name !== null && commMatches(p.name, expect.comm));
    tap.test(named.length > 0, `process ${expect.pid} is named '${expect.comm}'`,
      procs.length ? [`process rows: ${j(procs)}`] : [`no process row with pid ${expect.pid}`]);
  } else {
    tap.test(procs.length > 0, `process ${expect.pid} exists`,
      procs.length ? [] : [`no process row with pid ${expect.pid}`]);
  }

  // Resolve every listed thread to the utid with the most sched rows.
  const info = new Map();
  for (const t of expect.threads) {
    const rows = await q(
      `select t.utid, t.name, t.upid, p.pid, ` +
      `(select count(*) from sched s where s.utid = t.utid) as nsched ` +
      `from thread t left join process p using(upid) where t.tid = ${t.tid} ` +
      `order by nsched desc, t.utid`);
    info.set(t.tid, { rows, best: rows[0] });
  }
  const utidOf = (tid) => info.get(tid).best?.utid;

  for (const t of expect.threads) {
    const { rows, best } = info.get(t.tid);
    const label = `thread ${t.tid} '${t.name}'`;
    const multi = rows.length > 1 ? [`${rows.length} thread rows have tid ${t.tid}: ${j(rows)}`] : [];
    if (!best) {
      tap.test(false, `${label}: present in the thread table`, [`no thread row with tid ${t.tid}`]);
      continue;
    }
    const u = best.utid;

    // 3. Name.
    tap.test(best.name !== null && commMatches(best.name, t.name),
      `${label}: thread.name matches`, [`thread.name = ${j(best.name)} (utid ${u})`, ...multi]);

    // 4. Process.
    tap.test(best.pid === expect.pid, `${label}: thread.upid -> process.pid = ${expect.pid}`,
      best.pid === expect.pid ? [] : [`upid ${best.upid} has pid ${best.pid}`,
        'a thread gets its pid only from a thread kernel-object record with koid arg "process"']);

    // 5. Switches.
    tap.test(best.nsched >= expect.min_switches,
      `${label}: >= ${expect.min_switches} sched rows`, [`sched rows: ${best.nsched}`]);

    // 6. CPU.
    const bycpu = await q(
      `select cpu, count(*) as n, min(priority) as min_prio, max(priority) as max_prio ` +
      `from sched where utid = ${u} group by cpu order by cpu`);
    if (t.cpu === undefined) {
      tap.skip(`${label}: sched rows on the expected cpu`, 'no cpu in EXPECT.json');
    } else {
      const on = bycpu.filter((r) => r.cpu === t.cpu).reduce((a, r) => a + r.n, 0);
      const off = best.nsched - on;
      const allowed = 2 + Math.floor(best.nsched / 100);
      tap.test(on > 0 && off <= allowed, `${label}: sched rows on cpu ${t.cpu}`,
        [`rows per cpu: ${bycpu.map((r) => `cpu${r.cpu}=${r.n}`).join(' ') || 'none'}` +
          ` (${off} elsewhere, at most ${allowed} allowed)`,
         `priority (incoming_weight) range: ${bycpu.length ? `${Math.min(...bycpu.map((r) => r.min_prio))}..${Math.max(...bycpu.map((r) => r.max_prio))}` : 'n/a'}`]);
    }

    // 7. Runnable after wakeup. A wakeup record opens a thread_state row with
    //    state 'W' (waking, runnable); 'R' rows come from preemption.
    const states = await q(
      `select state, count(*) as n, sum(waker_utid is not null) as with_waker ` +
      `from thread_state where utid = ${u} group by state order by state`);
    const woken = states.filter((r) => r.state === 'W' || r.state === 'R');
    const nWoken = woken.reduce((a, r) => a + r.n, 0);
    tap.test(states.some((r) => r.state === 'W'),
      `${label}: thread_state has runnable-after-wakeup rows (state 'W')`,
      [`states: ${states.map((r) => `${r.state}=${r.n}`).join(' ') || 'none'}`]);

    // 8. Waker is another workload thread.
    const others = expect.threads.filter((o) => o.tid !== t.tid && utidOf(o.tid) !== undefined);
    if (others.length === 0) {
      tap.skip(`${label}: woken by another workload thread`, 'no other listed thread in the trace');
    } else {
      const otherUtids = others.map((o) => utidOf(o.tid));
      const wakers = await q(
        `select ts.waker_utid, w.tid as waker_tid, w.name as waker_name, count(*) as n ` +
        `from thread_state ts left join thread w on w.utid = ts.waker_utid ` +
        `where ts.utid = ${u} and ts.state in ('W', 'R') group by ts.waker_utid order by n desc`);
      const byOther = wakers.filter((r) => otherUtids.includes(r.waker_utid))
        .reduce((a, r) => a + r.n, 0);
      tap.test(byOther > 0,
        `${label}: thread_state.waker_utid points at ${others.map((o) => `${o.tid} '${o.name}'`).join(' or ')}`,
        [`${byOther} of ${nWoken} runnable rows name a listed thread as waker`,
         `wakers: ${wakers.map((r) => r.waker_utid === null ? `none=${r.n}`
           : `${r.waker_tid}${r.waker_name ? `'${r.waker_name}'` : ''}${r.waker_utid === u ? '(self)' : ''}=${r.n}`).join(' ')}`,
         ...(wakers.some((r) => r.waker_utid === u)
           ? ['(self): wakeup without a "waker" koid argument; v55.3 then names the woken thread'] : [])]);
    }
  }

  // 9. Idle: with weight INT32_MIN the idle side of a switch is not recorded
  //    at all; without it, tid 0 becomes one thread running on every CPU.
  const idle = await q(
    `select t.utid, t.tid, count(distinct s.cpu) as cpus, count(*) as n, group_concat(distinct s.cpu) as cpu_list ` +
    `from sched s join thread t using(utid) where t.tid = 0 group by t.utid`);
  const merged = idle.filter((r) => r.cpus > 1);
  tap.test(merged.length === 0, 'idle task (tid 0) is not merged into one thread across CPUs',
    idle.length === 0
      ? ['no sched rows for tid 0: idle sides are marked (weight INT32_MIN) and kept out of sched']
      : idle.map((r) => `utid ${r.utid} (tid 0): ${r.n} sched rows on cpus ${r.cpu_list}`));
}

async function main(argv) {
  let verbose = false;
  const pos = [];
  for (const a of argv) {
    if (a === '-h' || a === '--help') { process.stdout.write(USAGE + '\n'); return 0; }
    if (a === '--verbose') verbose = true;
    else if (a.startsWith('-')) { process.stderr.write(`check-trace.mjs: unknown option ${a}\n${USAGE}\n`); return 2; }
    else pos.push(a);
  }
  if (pos.length !== 2) {
    process.stderr.write(`check-trace.mjs: need FILE.fxt and EXPECT.json\n${USAGE}\n`);
    return 2;
  }
  const [trace, expectFile] = pos;
  let expect;
  try {
    expect = readExpect(expectFile);
  } catch (e) {
    process.stderr.write(`check-trace.mjs: ${e.message}\n`);
    return 2;
  }
  const tap = await checkTrace(trace, expect, { verbose });
  return tap.print() === 0 ? 0 : 1;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).then((code) => { process.exitCode = code; },
    (e) => { process.stderr.write(`check-trace.mjs: ${e.stack || e}\n`); process.exitCode = 1; });
}
