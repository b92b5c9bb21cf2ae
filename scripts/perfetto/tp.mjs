#!/usr/bin/env node
// SPDX-License-Identifier: GPL-2.0
//
// tp.mjs - run Perfetto's trace_processor (v55.3, WebAssembly) under Node.
//
// Library:
//   import { loadTrace } from './tp.mjs';
//   const tp = await loadTrace('trace.fxt');
//   const rows = await tp.query('select count(*) as n from sched');  // [{n: 42}]
//   const problems = await tp.importErrors();   // stats rows that matter
//   tp.close();
//
// CLI:
//   node scripts/perfetto/tp.mjs [--stats] FILE.fxt ['SQL' ...]
//
// The engine files come from scripts/perfetto/fetch-trace-processor.sh, which
// unpacks them into ${FXTRACE_CACHE:-<repo>/.cache}/perfetto/trace-processor/.
// FXTRACE_TP_DIR overrides that directory.
//
// How the engine is driven:
// engine_bundle.node.js is Perfetto UI's engine *worker* script. We evaluate
// it inside a function whose parameters shadow the worker globals it looks
// for (self, WorkerGlobalScope, XMLHttpRequest, console), so nothing leaks
// into Node's real global scope. The worker fetches trace_processor.wasm with
// a synchronous XMLHttpRequest, which our stand-in answers from memory. The
// worker then waits for one message carrying a MessagePort; everything after
// that is the TraceProcessorRpc byte stream, which EngineBase (engine.mjs)
// encodes and decodes.

import fs from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import { fileURLToPath, pathToFileURL } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(HERE, '..', '..');

/** Largest slice of trace bytes handed to one parse() call. */
export const CHUNK_BYTES = 16 * 1024 * 1024;

/** The engine version the bundle was built from (checked at load time). */
export const TP_VERSION = 'v55.3';

/** Directory holding trace_processor.wasm, engine_bundle.node.js, engine.mjs. */
export function assetsDir() {
  if (process.env.FXTRACE_TP_DIR) return path.resolve(process.env.FXTRACE_TP_DIR);
  const cache = process.env.FXTRACE_CACHE
    ? path.resolve(process.env.FXTRACE_CACHE)
    : path.join(REPO, '.cache');
  return path.join(cache, 'perfetto', 'trace-processor');
}

export class TraceProcessorError extends Error {
  constructor(message, { cause, stderr } = {}) {
    super(message, cause ? { cause } : undefined);
    this.name = 'TraceProcessorError';
    this.stderr = stderr || [];
  }
}

function assetPaths(dir) {
  const p = {
    dir,
    wasm: path.join(dir, 'trace_processor.wasm'),
    bundle: path.join(dir, 'engine_bundle.node.js'),
    engine: path.join(dir, 'engine.mjs'),
  };
  for (const f of [p.wasm, p.bundle, p.engine]) {
    if (!fs.existsSync(f)) {
      throw new TraceProcessorError(
        `trace_processor engine file missing: ${f}\n` +
          `  run scripts/perfetto/fetch-trace-processor.sh first ` +
          `(or set FXTRACE_TP_DIR to a directory holding the three files)`);
    }
  }
  return p;
}

// engine.mjs is an ES module exporting EngineBase; import it once.
const engineModules = new Map();
function importEngineModule(file) {
  if (!engineModules.has(file)) engineModules.set(file, import(pathToFileURL(file).href));
  return engineModules.get(file);
}

// The bundle picks the memory64 build when WebAssembly supports it; only the
// 32-bit trace_processor.wasm is shipped, so force the 32-bit variant.
const MEM64_ANCHOR = 'this.useMemory64 = hasMemory64Support();';

function bundleFactory(file) {
  let src = fs.readFileSync(file, 'utf8');
  if (!src.includes(MEM64_ANCHOR)) {
    throw new TraceProcessorError(
      `${file}: not the expected Perfetto engine bundle ` +
        `(cannot find "${MEM64_ANCHOR}"); re-run fetch-trace-processor.sh`);
  }
  src = src.replace(MEM64_ANCHOR, 'this.useMemory64 = false;');
  // A function expression: parameters shadow the globals the worker uses.
  // The newline keeps the trailing sourceMappingURL comment from eating "})".
  const wrapped =
    '(function (self, WorkerGlobalScope, XMLHttpRequest, console) {\n' + src + '\n})';
  return vm.runInThisContext(wrapped, { filename: file });
}

/**
 * Start one trace_processor instance. Returns an object with the EngineBase
 * API (parse, notifyEof, query, ...) plus close(), fatal (a promise that
 * rejects if the engine dies) and stderr (trace_processor's log lines).
 */
export async function createEngine({ dir = assetsDir(), verbose = false } = {}) {
  const paths = assetPaths(dir);
  const { EngineBase } = await importEngineModule(paths.engine);
  const wasmBytes = fs.readFileSync(paths.wasm);
  const stderr = [];
  const log = (line) => {
    line = String(line).replace(/\r/g, '').trimEnd();
    // Harmless: the 32-bit build asks for mprotect, which wasm cannot do.
    if (!line || /unsupported syscall: __syscall_mprotect/.test(line)) return;
    stderr.push(line);
    if (stderr.length > 512) stderr.shift();
    if (verbose) process.stderr.write(`[trace_processor] ${line}\n`);
  };

  // Answers the worker's synchronous GET for the wasm file.
  class FakeXMLHttpRequest {
    open(method, url, async) {
      this.url = String(url);
      this.async = async;
    }
    send() {
      if (!this.url.endsWith('trace_processor.wasm')) {
        throw new TraceProcessorError(`engine asked for unexpected file ${this.url}`);
      }
      const b = wasmBytes;
      this.response = b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength);
      this.status = 200;
    }
  }
  // Only the worker's console: print/printErr of the wasm module go here,
  // never to our stdout (which carries JSON).
  const workerConsole = {
    log: log, info: log, debug: log, warn: log, error: log,
  };
  const workerSelf = {
    location: { href: pathToFileURL(paths.bundle).href },
    onmessage: null,
    postMessage() {},
  };
  workerSelf.self = workerSelf;

  let fatalReject;
  const fatal = new Promise((_, reject) => { fatalReject = reject; });
  fatal.catch(() => {});
  let dead = null;
  const die = (err) => {
    if (dead) return;
    dead = err instanceof Error ? err : new Error(String(err));
    fatalReject(new TraceProcessorError(
      `trace_processor failed: ${dead.message}`, { cause: dead, stderr }));
  };

  try {
    const factory = bundleFactory(paths.bundle);
    factory(workerSelf, function WorkerGlobalScope() {}, FakeXMLHttpRequest, workerConsole);
  } catch (e) {
    throw new TraceProcessorError(`cannot start trace_processor wasm: ${e.message}`,
      { cause: e, stderr });
  }
  if (typeof workerSelf.onmessage !== 'function') {
    throw new TraceProcessorError('engine bundle did not install its onmessage handler');
  }
  // The runtime initialises synchronously; the bridge allocates its request
  // buffer in a promise continuation. Let that run before any request.
  await new Promise((r) => setImmediate(r));

  const channel = new MessageChannel();
  const { port1, port2 } = channel;
  // Hand the worker a thin wrapper around port1 so an exception in the wasm
  // side (abort, crash) becomes a rejected promise instead of an uncaught
  // exception in the event loop.
  const workerPort = {
    set onmessage(fn) {
      port1.onmessage = (m) => {
        try { fn(m); } catch (e) { die(e); }
      };
    },
    postMessage(data, transfer) { port1.postMessage(data, transfer); },
  };
  workerSelf.onmessage({ data: workerPort });

  class NodeWasmEngine extends EngineBase {
    mode = 'WASM';
    id = TP_VERSION;
    rpcSendRequestBytes(data) {
      if (dead) throw new TraceProcessorError(`trace_processor is dead: ${dead.message}`);
      port2.postMessage(data);
    }
  }
  const engine = new NodeWasmEngine();
  port2.onmessage = (m) => {
    if (!(m.data instanceof Uint8Array)) return;
    // engine.mjs's decoder predates a QueryResult field that v55.3 sends and
    // console.warn()s "Unexpected QueryResult field 7" for every query (the
    // field is skipped correctly). Filter that one message while decoding.
    const warn = console.warn;
    console.warn = (...a) => {
      if (/^Unexpected QueryResult/.test(String(a[0]))) return;
      warn.apply(console, a);
    };
    try { engine.onRpcResponseBytes(m.data); } catch (e) { die(e); } finally { console.warn = warn; }
  };

  let closed = false;
  engine.close = () => {
    if (closed) return;
    closed = true;
    port1.onmessage = null;
    port2.onmessage = null;
    port1.close();
    port2.close();
  };
  engine.fatal = fatal;
  engine.stderr = stderr;
  return engine;
}

function race(engine, promise) {
  return Promise.race([promise, engine.fatal]);
}

function cell(v) {
  if (typeof v === 'bigint') {
    const n = Number(v);
    return Number.isSafeInteger(n) ? n : v.toString();
  }
  if (v instanceof Uint8Array) return Buffer.from(v).toString('hex');
  return v;
}

/** Run one SQL statement (or several; the last one's rows are returned). */
export async function queryRows(engine, sql) {
  let res;
  try {
    res = await race(engine, engine.query(sql));
  } catch (e) {
    if (e instanceof TraceProcessorError) throw e;
    throw new TraceProcessorError(`query failed: ${e.message || e}\n  SQL: ${sql}`,
      { cause: e, stderr: engine.stderr });
  }
  const err = res.error();
  if (err) {
    throw new TraceProcessorError(`query failed: ${err}\n  SQL: ${sql}`,
      { stderr: engine.stderr });
  }
  const cols = res.columns();
  const rows = [];
  for (const it = res.iter({}); it.valid(); it.next()) {
    const row = {};
    for (const c of cols) row[c] = cell(it.get(c));
    rows.push(row);
  }
  return rows;
}

/** The stats rows that mean an import problem. */
export const IMPORT_ERRORS_SQL =
  "select name, idx, severity, source, value, description from stats " +
  "where severity in ('error', 'data_loss') and value != 0 order by name, idx";

/** Load trace bytes (Uint8Array) into a fresh engine. */
export async function loadTraceBytes(bytes, opts = {}) {
  const engine = await createEngine(opts);
  try {
    for (let off = 0; off < bytes.length; off += CHUNK_BYTES) {
      await race(engine, engine.parse(bytes.subarray(off, off + CHUNK_BYTES)));
    }
    await race(engine, engine.notifyEof());
  } catch (e) {
    engine.close();
    if (e instanceof TraceProcessorError) throw e;
    throw new TraceProcessorError(`trace_processor rejected the trace: ${e.message || e}`,
      { cause: e instanceof Error ? e : undefined, stderr: engine.stderr });
  }
  return {
    engine,
    query: (sql) => queryRows(engine, sql),
    importErrors: () => queryRows(engine, IMPORT_ERRORS_SQL),
    stderr: engine.stderr,
    close: () => engine.close(),
  };
}

/**
 * Load an FXT (or any Perfetto-readable) trace file.
 * Returns { query(sql) -> Promise<rows[]>, importErrors(), stderr, close() }.
 */
export async function loadTrace(file, opts = {}) {
  let bytes;
  try {
    bytes = fs.readFileSync(file);
  } catch (e) {
    throw new TraceProcessorError(`cannot read trace ${file}: ${e.message}`, { cause: e });
  }
  if (bytes.length === 0) throw new TraceProcessorError(`trace ${file} is empty`);
  try {
    return await loadTraceBytes(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length), opts);
  } catch (e) {
    if (e instanceof TraceProcessorError) e.message = `${file}: ${e.message}`;
    throw e;
  }
}

/** JSON.stringify that survives BigInt (never produced by cell(), but be safe). */
export function toJSON(v, indent) {
  return JSON.stringify(v, (_, x) => (typeof x === 'bigint' ? x.toString() : x), indent);
}

const USAGE = `usage: node scripts/perfetto/tp.mjs [options] FILE ['SQL' ...]

Load FILE (FXT, or any format Perfetto reads) into trace_processor ${TP_VERSION}
(WebAssembly) and print the rows of each SQL query as one JSON array per line.

options:
  --stats      also print the stats rows with severity error/data_loss and a
               non-zero value (one JSON array, printed after the queries)
  --pretty     indent the JSON
  --verbose    copy trace_processor's own log lines to stderr
  -h, --help   this text

environment:
  FXTRACE_CACHE   cache directory (default <repo>/.cache); the engine lives in
                  $FXTRACE_CACHE/perfetto/trace-processor/
  FXTRACE_TP_DIR  use the engine files in this directory instead

exit status: 0 ok, 1 load or query failure, 2 usage error.
Fetch the engine first with scripts/perfetto/fetch-trace-processor.sh.`;

async function main(argv) {
  const opts = { stats: false, pretty: false, verbose: false };
  const pos = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '-h' || a === '--help') { process.stdout.write(USAGE + '\n'); return 0; }
    else if (a === '--stats') opts.stats = true;
    else if (a === '--pretty') opts.pretty = true;
    else if (a === '--verbose') opts.verbose = true;
    else if (a === '--') { pos.push(...argv.slice(i + 1)); break; }
    else if (a.startsWith('-') && a !== '-') {
      process.stderr.write(`tp.mjs: unknown option ${a}\n${USAGE}\n`);
      return 2;
    } else pos.push(a);
  }
  if (pos.length < 1 || (pos.length < 2 && !opts.stats)) {
    process.stderr.write(`tp.mjs: need a trace file and at least one SQL query (or --stats)\n${USAGE}\n`);
    return 2;
  }
  const [file, ...queries] = pos;
  const indent = opts.pretty ? 2 : undefined;
  let tp;
  try {
    tp = await loadTrace(file, { verbose: opts.verbose });
    for (const sql of queries) {
      const rows = await tp.query(sql);
      process.stdout.write(toJSON(rows, indent) + '\n');
    }
    if (opts.stats) {
      process.stdout.write(toJSON(await tp.importErrors(), indent) + '\n');
    }
  } catch (e) {
    process.stderr.write(`tp.mjs: ${e.message}\n`);
    const tail = (e.stderr || []).slice(-20);
    if (tail.length) process.stderr.write(`trace_processor log (last lines):\n  ${tail.join('\n  ')}\n`);
    return 1;
  } finally {
    tp?.close();
  }
  return 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).then((code) => { process.exitCode = code; });
}
