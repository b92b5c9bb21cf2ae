#!/usr/bin/env node
// SPDX-License-Identifier: GPL-2.0
//
// waker-arg-types.mjs - which argument types Perfetto takes as a wakeup's
// "waker"
//
//   node scripts/perfetto/waker-arg-types.mjs
//
// A measurement, not a test of our files: the kernel's wakeup record
// carries its waker as a koid argument, two words. A one-word int32 or
// uint32 argument would make every wakeup with a waker 8 bytes shorter,
// if Perfetto took it. This builds one small trace per argument type
// (two threads taking turns: 10 wakeups, each with a waker, and 10
// context switches), loads each into trace_processor and prints, per
// type, the runnable rows that got a waker and the import errors.

import { loadTraceBytes, IMPORT_ERRORS_SQL, TP_VERSION } from './tp.mjs';

const STR = { incoming: 1, outgoing: 2, waker: 3, process: 4 };
const words = (...ws) => ws.map((w) => BigInt.asUintN(64, BigInt(w)));

// A string as FXT stream words: its bytes zero-padded to whole words.
function streamWords(text) {
  const bytes = Buffer.from(text);
  const padded = Buffer.alloc(8 * Math.ceil(bytes.length / 8));
  bytes.copy(padded);
  const out = [];
  for (let i = 0; i < padded.length; i += 8) out.push(padded.readBigUInt64LE(i));
  return { length: bytes.length, words: out };
}

function stringRecord(index, text) {
  const s = streamWords(text);
  return words(2n | BigInt(1 + s.words.length) << 4n | BigInt(index) << 16n |
    BigInt(s.length) << 32n).concat(s.words);
}

function kernelObject(type, koid, name, args = [], nargs = 0) {
  const s = streamWords(name);
  return words(7n | BigInt(2 + s.words.length + args.length) << 4n | BigInt(type) << 16n |
    BigInt(0x8000 | s.length) << 24n | BigInt(nargs) << 40n, koid).concat(s.words, args);
}

// One-word arguments (int32 1, uint32 2) carry the value in the header.
const oneWord = (type, name, v) => words(BigInt(type) | 1n << 4n | BigInt(name) << 16n | BigInt(v) << 32n);
const twoWords = (type, name, v) => words(BigInt(type) | 2n << 4n | BigInt(name) << 16n, v);

const WAKER = {
  koid: (tid) => twoWords(8, STR.waker, tid),
  int32: (tid) => oneWord(1, STR.waker, tid),
  uint32: (tid) => oneWord(2, STR.waker, tid),
  uint64: (tid) => twoWords(4, STR.waker, tid),
  int64: (tid) => twoWords(3, STR.waker, tid),
};

function trace(wakerArg) {
  let w = words(0x0016547846040010n, 1n | 2n << 4n, 1000000000n);
  w = w.concat(stringRecord(STR.incoming, 'incoming_weight'), stringRecord(STR.outgoing, 'outgoing_weight'),
    stringRecord(STR.waker, 'waker'), stringRecord(STR.process, 'process'),
    kernelObject(1, 100, 'proc'));
  for (const [tid, name] of [[101, 'a'], [102, 'b']])
    w = w.concat(kernelObject(2, tid, name, twoWords(8, STR.process, 100), 1));
  let ts = 1000;
  let cur = 101;
  for (let i = 0; i < 10; i++) {
    const other = cur === 101 ? 102 : 101;
    const arg = wakerArg(cur);
    w = w.concat(words(8n | BigInt(3 + arg.length) << 4n | 1n << 16n | 2n << 60n, ts, other), arg);
    ts += 100;
    const weights = oneWord(1, STR.incoming, 120).concat(oneWord(1, STR.outgoing, 120));
    w = w.concat(words(8n | 6n << 4n | 2n << 16n | 3n << 36n | 1n << 60n, ts, cur, other), weights);
    ts += 100;
    cur = other;
  }
  const buf = Buffer.alloc(8 * w.length);
  w.forEach((v, i) => buf.writeBigUInt64LE(v, 8 * i));
  return new Uint8Array(buf);
}

console.log(`Perfetto trace_processor ${TP_VERSION}: 10 wakeups with a "waker" argument of each type`);
console.log('| type | runnable rows with a waker | sched rows | import errors |');
console.log('|---|---|---|---|');
for (const [type, arg] of Object.entries(WAKER)) {
  const tp = await loadTraceBytes(trace(arg));
  const [{ n, wk }] = await tp.query(
    "select count(*) as n, sum(waker_utid is not null) as wk from thread_state where state in ('W', 'R')");
  const [{ s }] = await tp.query('select count(*) as s from sched');
  const errors = (await tp.query(IMPORT_ERRORS_SQL)).map((r) => `${r.name} ${r.value}`).join(', ');
  tp.close();
  console.log(`| ${type} | ${wk ?? 0} of ${n} | ${s} | ${errors || 'none'} |`);
}
