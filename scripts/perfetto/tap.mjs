// SPDX-License-Identifier: GPL-2.0
//
// tap.mjs - collect test results and print them as TAP version 13, for the
// Perfetto checks (check-trace.mjs, check-names.mjs, check-loss.mjs), and
// the command line of a check that takes FILE.fxt and one JSON file.

import { loadTrace, TP_VERSION } from './tp.mjs';

export class Tap {
  constructor() { this.results = []; }
  test(ok, name, diag = []) { this.results.push({ ok: !!ok, name, diag }); return !!ok; }
  skip(name, why) { this.results.push({ ok: true, name, diag: [], skip: why }); }
  print(out = process.stdout) {
    const lines = ['TAP version 13', `1..${this.results.length}`];
    this.results.forEach((r, i) => {
      const dir = r.skip ? ` # SKIP ${r.skip}` : '';
      lines.push(`${r.ok ? 'ok' : 'not ok'} ${i + 1} - ${r.name}${dir}`);
      for (const d of r.diag) for (const l of String(d).split('\n')) lines.push(`# ${l}`);
    });
    const failed = this.results.filter((r) => !r.ok).length;
    lines.push(`# ${this.results.length - failed}/${this.results.length} passed`);
    out.write(lines.join('\n') + '\n');
    return failed;
  }
}

/**
 * The whole life of a "check-X.mjs FILE.fxt DATA.json" command: usage,
 * read DATA.json with readData(file) (throws on bad data: exit 2), load the
 * trace, run check(tp, tap, data), print TAP. Returns the exit status:
 * 0 all passed, 1 a test failed or the trace did not load, 2 usage/data.
 */
export async function runTraceCheck(argv, { name, usage, readData, check }) {
  if (argv.includes('-h') || argv.includes('--help')) {
    console.log(usage);
    return 0;
  }
  if (argv.length !== 2) {
    console.error(usage);
    return 2;
  }
  let data;
  try {
    data = readData(argv[1]);
  } catch (e) {
    console.error(`${name}: ${argv[1]}: ${e.message}`);
    return 2;
  }
  const tap = new Tap();
  let tp;
  try {
    tp = await loadTrace(argv[0]);
  } catch (e) {
    tap.test(false, `trace loads in trace_processor ${TP_VERSION}`, [e.message]);
    return tap.print() ? 1 : 0;
  }
  tap.test(true, `trace loads in trace_processor ${TP_VERSION}`, [argv[0]]);
  try {
    await check(tp, tap, data);
  } catch (e) {
    tap.test(false, 'checks ran to completion', [e.message]);
  } finally {
    tp.close();
  }
  return tap.print() ? 1 : 0;
}
