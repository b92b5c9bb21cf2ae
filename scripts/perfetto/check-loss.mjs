#!/usr/bin/env node
// SPDX-License-Identifier: GPL-2.0
//
// check-loss.mjs - does Perfetto show every hole the rings left, where it is?
//
//   node scripts/perfetto/check-loss.mjs FILE.fxt LOSS.json
//
// LOSS.json: {"dropped": N}, the total fxt-collect reported for FILE.fxt.
// The kernel marks each hole in a CPU's records with a pair of counter
// samples on "records_lost:cpu:<cpu>" (uapi/linux/fxtrace.h, "Loss
// markers"): the number lost at the first loss, then 0 where records
// resume. The records a ring dropped after its last record, which the
// kernel cannot mark, fxt-collect marks the same way after the last drain
// (docs/decisions.md, decision 7), so the pairs account for every record
// dropped. Prints TAP version 13; exit 0 only if every test passes (1 = a
// test failed or the trace did not load, 2 = usage or LOSS.json error).

import fs from 'node:fs';
import { IMPORT_ERRORS_SQL, TP_VERSION } from './tp.mjs';
import { runTraceCheck } from './tap.mjs';

const USAGE = `usage: node scripts/perfetto/check-loss.mjs FILE.fxt LOSS.json

Load FILE.fxt into Perfetto trace_processor ${TP_VERSION} and check its
records_lost counter tracks: at least one exists; on each, samples come in
(N > 0, then 0) pairs in time order; no sched slice of that CPU starts inside
a hole; and the records they mark add up to LOSS.json's "dropped" (the
kernel's pairs and the ones fxt-collect writes for what a ring lost after
its last record).`;

const SHOW = 10;

function readLoss(file) {
  const { dropped } = JSON.parse(fs.readFileSync(file, 'utf8'));
  if (!Number.isSafeInteger(dropped) || dropped <= 0) throw new Error('"dropped" must be a positive integer');
  return dropped;
}

async function check(tp, tap, dropped) {
  const errs = await tp.query(IMPORT_ERRORS_SQL);
  tap.test(errs.length === 0, "stats has no severity 'error'/'data_loss' row with value > 0",
    errs.map((r) => `${r.name} severity=${r.severity} value=${r.value}`));

  const samples = await tp.query(
    'select t.name as track, c.ts, cast(c.value as int) as value ' +
    'from counter c join counter_track t on c.track_id = t.id ' +
    "where t.name like 'records_lost%' order by t.name, c.ts, c.id");
  const tracks = new Map();
  for (const s of samples) {
    if (!tracks.has(s.track)) tracks.set(s.track, []);
    tracks.get(s.track).push(s);
  }
  tap.test(tracks.size > 0, 'the trace has records_lost counter tracks',
    [...tracks.keys()].map((k) => `${k}: ${tracks.get(k).length} samples`));

  const bad = [];
  const holes = [];
  let marked = 0;
  for (const [track, list] of tracks) {
    const cpu = Number(track.split(':').pop());
    if (!Number.isInteger(cpu)) bad.push(`${track}: no CPU number at the end of the name`);
    for (let i = 0; i < list.length; i += 2) {
      const [lost, end] = [list[i], list[i + 1]];
      if (!end || !(lost.value > 0) || end.value !== 0 || end.ts < lost.ts) {
        bad.push(`${track}: samples ${i}, ${i + 1} are not an (N > 0, then 0) pair: ` +
          JSON.stringify([lost, end]));
        break;
      }
      marked += lost.value;
      holes.push({ cpu, from: lost.ts, to: end.ts, lost: lost.value });
    }
  }
  tap.test(bad.length === 0, 'every track is a sequence of (records lost, then 0) pairs',
    [`${holes.length} holes marked, ${marked} records`, ...bad.slice(0, SHOW)]);

  const filled = [];
  for (const h of holes) {
    const [r] = await tp.query(
      `select count(*) as n from sched where cpu = ${h.cpu} and ts > ${h.from} and ts < ${h.to}`);
    if (r.n !== 0) filled.push(`cpu ${h.cpu} hole (${h.from}, ${h.to}) of ${h.lost} records has ${r.n} sched slices starting inside`);
  }
  tap.test(filled.length === 0, 'no sched slice of a CPU starts inside one of its holes',
    [`${holes.length} holes checked`, ...filled.slice(0, SHOW)]);

  tap.test(marked === dropped,
    `the marked records add up to the ${dropped} fxt-collect reported`,
    [`marked ${marked} of ${dropped} dropped`]);
}

process.exitCode = await runTraceCheck(process.argv.slice(2),
  { name: 'check-loss', usage: USAGE, readData: readLoss, check });
