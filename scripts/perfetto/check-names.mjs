#!/usr/bin/env node
// SPDX-License-Identifier: GPL-2.0
//
// check-names.mjs - does Perfetto name every short-lived thread of a trace?
//
//   node scripts/perfetto/check-names.mjs FILE.fxt EXPECT.json
//
// EXPECT.json is what `fxt-threads --expect` writes:
//   {"pid": 123, "threads": [{"tid": 124, "name": "thr-000"}, ...],
//    "reused": [{"tid": 130, "old": "old-000", "new": "new-000"}, ...]}
// Those threads lived a few milliseconds each, so only the kernel's name
// records (fork, rename) can have named them. Prints TAP version 13; exit 0
// only if every test passes (1 = a test failed or the trace did not load,
// 2 = usage or EXPECT.json error).

import fs from 'node:fs';
import { IMPORT_ERRORS_SQL, TP_VERSION } from './tp.mjs';
import { runTraceCheck } from './tap.mjs';

const USAGE = `usage: node scripts/perfetto/check-names.mjs FILE.fxt EXPECT.json

Load FILE.fxt into Perfetto trace_processor ${TP_VERSION} and check, for every
thread listed in EXPECT.json (written by fxt-threads --expect), that a thread
with that tid has that name and belongs to a process with EXPECT's pid, and
that its scheduling rows (sched) are attributed to that named thread; and for
every "reused" tid (two threads in turn), that the name is the newer one.`;

function readExpect(file) {
  const e = JSON.parse(fs.readFileSync(file, 'utf8'));
  const ok = e && Number.isSafeInteger(e.pid) && e.pid > 0 && Array.isArray(e.threads) &&
    e.threads.length > 0 &&
    e.threads.every((t) => Number.isSafeInteger(t.tid) && t.tid > 0 && typeof t.name === 'string');
  if (!ok) throw new Error(`want {"pid": N, "threads": [{"tid": N, "name": "..."}, ...]}`);
  return e;
}

// At most this many offenders are listed in a failure's diagnostics.
const SHOW = 10;

async function check(tp, tap, expect) {
  const errs = await tp.query(IMPORT_ERRORS_SQL);
  tap.test(errs.length === 0, "stats has no severity 'error'/'data_loss' row with value > 0",
    errs.map((r) => `${r.name} severity=${r.severity} value=${r.value}`));

  const tids = expect.threads.map((t) => t.tid).join(',');
  const rows = await tp.query(
    'select t.utid, t.tid, t.name, p.pid, ' +
    '(select count(*) from sched s where s.utid = t.utid) as slices ' +
    `from thread t left join process p using (upid) where t.tid in (${tids})`);
  const byTid = new Map();
  for (const r of rows) {
    if (!byTid.has(r.tid)) byTid.set(r.tid, []);
    byTid.get(r.tid).push(r);
  }
  const n = expect.threads.length;
  const unnamed = [];
  const unscheduled = [];
  for (const t of expect.threads) {
    const mine = (byTid.get(t.tid) || []).filter((r) => r.name === t.name && r.pid === expect.pid);
    if (mine.length === 0) {
      const seen = (byTid.get(t.tid) || []).map((r) => `name=${JSON.stringify(r.name)} pid=${r.pid}`);
      unnamed.push(`tid ${t.tid}: want ${JSON.stringify(t.name)} in pid ${expect.pid}, ` +
        `have ${seen.length ? seen.join('; ') : 'no thread row'}`);
    } else if (!mine.some((r) => r.slices > 0)) {
      unscheduled.push(`tid ${t.tid} (${t.name}): no sched rows on the named thread`);
    }
  }
  tap.test(unnamed.length === 0, `all ${n} threads have their name and their process's pid ${expect.pid}`,
    [`${n - unnamed.length}/${n} named`, ...unnamed.slice(0, SHOW)]);
  tap.test(unscheduled.length === 0, `the sched rows of all ${n} threads belong to the named threads`,
    [`${n - unnamed.length - unscheduled.length}/${n} have sched rows`, ...unscheduled.slice(0, SHOW)]);

  // A reused tid: names are last-wins per tid, so the new thread's name.
  const reused = expect.reused || [];
  if (reused.length === 0) {
    tap.skip('reused tids carry the newest name', 'EXPECT.json lists no reused tids');
    return;
  }
  const rrows = await tp.query('select t.tid, t.name, p.pid from thread t left join process p using (upid) ' +
    `where t.tid in (${reused.map((r) => r.tid).join(',')})`);
  const stale = reused.filter((r) => !rrows.some((x) => x.tid === r.tid && x.pid === expect.pid && x.name === r.new))
    .map((r) => `tid ${r.tid}: want ${JSON.stringify(r.new)} (was ${JSON.stringify(r.old)}), have ` +
      JSON.stringify(rrows.filter((x) => x.tid === r.tid).map((x) => x.name)));
  tap.test(stale.length === 0, `all ${reused.length} reused tids carry the newest name`, stale.slice(0, SHOW));
}

process.exitCode = await runTraceCheck(process.argv.slice(2),
  { name: 'check-names', usage: USAGE, readData: readExpect, check });
