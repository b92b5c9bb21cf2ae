// SPDX-License-Identifier: GPL-2.0
//
// tap.mjs - collect test results and print them as TAP version 13, for the
// Perfetto checks (check-trace.mjs, check-names.mjs, check-loss.mjs).

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
