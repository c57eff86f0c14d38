#!/usr/bin/env node
// ONNX Runtime side of the peer comparison (bench/compare.py), through bench/ort-node
// (onnxruntime-node 1.30, CPU execution provider).
//
//   node bench/run_ort.js MODEL --threads N --runs N --warmup N --inputs-dir DIR
//                         [--outputs-dir DIR] [--json FILE] [--profile PREFIX]
//
// Reads each graph input from DIR/<input_name>.npy, creates the session (intraOpNumThreads=N,
// interOpNumThreads=1, graphOptimizationLevel 'all', executionMode 'sequential'), times the
// creation and the first run, then WARMUP untimed runs and RUNS timed runs. Prints one JSON
// object on stdout: create_ms, first_run_ms, min_ms, median_ms, p90_ms, peak_rss_mb (VmHWM of
// this node process, MB = 2^20 bytes), plus a few descriptive keys; --json also writes it to FILE.
// --outputs-dir writes each output of the first run as <output_name>.npy. --profile turns on
// ORT's profiler (a Chrome trace, PREFIX_<date>.json, one event per node per run; the timed
// runs then include its cost); the JSON gets the file's name as profile_file.
'use strict';
const fs = require('fs');
const path = require('path');

const ort = require(path.join(__dirname, 'ort-node', 'node_modules', 'onnxruntime-node'));
const ortVersion = require(path.join(__dirname, 'ort-node', 'node_modules', 'onnxruntime-node', 'package.json')).version;

// ---- .npy (format 1.0/2.0/3.0 read, 1.0 written; little-endian, C order) -----------------------

const NPY_TYPES = {  // descr -> [ort type, TypedArray]
  '<f4': ['float32', Float32Array],
  '<f8': ['float64', Float64Array],
  '<i8': ['int64', BigInt64Array],
  '<i4': ['int32', Int32Array],
  '<i2': ['int16', Int16Array],
  '|i1': ['int8', Int8Array],
  '|u1': ['uint8', Uint8Array],
  '<u2': ['uint16', Uint16Array],
  '<u4': ['uint32', Uint32Array],
  '<u8': ['uint64', BigUint64Array],
  '|b1': ['bool', Uint8Array],
};

function readNpy(file) {
  const buf = fs.readFileSync(file);
  if (buf.length < 10 || buf[0] !== 0x93 || buf.toString('latin1', 1, 6) !== 'NUMPY')
    throw new Error(`${file}: not a .npy file`);
  const major = buf[6];
  let headerLen, start;
  if (major === 1) { headerLen = buf.readUInt16LE(8); start = 10; }
  else if (major === 2 || major === 3) { headerLen = buf.readUInt32LE(8); start = 12; }
  else throw new Error(`${file}: unsupported .npy version ${major}`);
  const header = buf.toString('latin1', start, start + headerLen);
  const descr = /'descr'\s*:\s*'([^']*)'/.exec(header);
  const fortran = /'fortran_order'\s*:\s*(True|False)/.exec(header);
  const shapeM = /'shape'\s*:\s*\(([^)]*)\)/.exec(header);
  if (!descr || !fortran || !shapeM) throw new Error(`${file}: bad .npy header ${header}`);
  if (fortran[1] === 'True') throw new Error(`${file}: Fortran-order arrays are not supported`);
  const d = descr[1].replace(/^=/, '<');
  const t = NPY_TYPES[d];
  if (!t) throw new Error(`${file}: unsupported dtype ${descr[1]} (need little-endian ${Object.keys(NPY_TYPES).join(', ')})`);
  const dims = shapeM[1].split(',').map(s => s.trim()).filter(s => s.length).map(Number);
  const numel = dims.reduce((a, b) => a * b, 1);
  const [type, Arr] = t;
  const offset = start + headerLen;
  const bytes = numel * Arr.BYTES_PER_ELEMENT;
  if (buf.length - offset < bytes) throw new Error(`${file}: truncated (${buf.length - offset} of ${bytes} bytes)`);
  const ab = new ArrayBuffer(bytes);  // a fresh, aligned copy
  new Uint8Array(ab).set(buf.subarray(offset, offset + bytes));
  let data = new Arr(ab);
  if (type === 'bool') data = new Uint8Array(ab);
  return { type, dims, data };
}

const ORT_TO_NPY = Object.fromEntries(Object.entries(NPY_TYPES).map(([d, [t]]) => [t, d]));

function writeNpy(file, tensor) {
  const descr = ORT_TO_NPY[tensor.type];
  if (!descr) throw new Error(`cannot write a ${tensor.type} tensor as .npy`);
  const dims = tensor.dims.map(Number);
  const shape = dims.length === 1 ? `(${dims[0]},)` : `(${dims.join(', ')})`;
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': ${shape}, }`;
  const total = 10 + header.length + 1;
  header += ' '.repeat((64 - (total % 64)) % 64) + '\n';
  const pre = Buffer.alloc(10);
  pre[0] = 0x93; pre.write('NUMPY', 1, 'latin1'); pre[6] = 1; pre[7] = 0;
  pre.writeUInt16LE(header.length, 8);
  const data = tensor.data;
  const body = tensor.type === 'bool'
    ? Buffer.from(Uint8Array.from(data, v => (v ? 1 : 0)))
    : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  fs.writeFileSync(file, Buffer.concat([pre, Buffer.from(header, 'latin1'), body]));
}

// ---- arguments -----------------------------------------------------------------------------------

function usage(msg) {
  if (msg) process.stderr.write(`run_ort.js: ${msg}\n`);
  process.stderr.write('usage: node bench/run_ort.js MODEL --threads N --runs N --warmup N --inputs-dir DIR ' +
                       '[--outputs-dir DIR] [--json FILE] [--profile PREFIX]\n');
  process.exit(2);
}

function parseArgs(argv) {
  const a = { threads: 1, runs: 10, warmup: 2, inputsDir: null, outputsDir: null, json: null, profile: null, model: null };
  for (let i = 0; i < argv.length; ++i) {
    const k = argv[i];
    const next = () => { if (i + 1 >= argv.length) usage(`${k} needs a value`); return argv[++i]; };
    const int = (v, min) => { const n = Number(v); if (!Number.isInteger(n) || n < min) usage(`${k} takes an integer >= ${min}, got '${v}'`); return n; };
    if (k === '--threads') a.threads = int(next(), 1);
    else if (k === '--runs') a.runs = int(next(), 1);
    else if (k === '--warmup') a.warmup = int(next(), 0);
    else if (k === '--inputs-dir') a.inputsDir = next();
    else if (k === '--outputs-dir') a.outputsDir = next();
    else if (k === '--json') a.json = next();
    else if (k === '--profile') a.profile = next();
    else if (k === '-h' || k === '--help') usage();
    else if (k.startsWith('-')) usage(`unknown option '${k}'`);
    else if (a.model === null) a.model = k;
    else usage(`unexpected argument '${k}'`);
  }
  if (!a.model) usage('no model given');
  if (!a.inputsDir) usage('--inputs-dir is required');
  return a;
}

// ---- measurement ---------------------------------------------------------------------------------

const nowMs = () => Number(process.hrtime.bigint()) / 1e6;

function peakRssMb() {
  const m = /^VmHWM:\s+(\d+)\s+kB/m.exec(fs.readFileSync('/proc/self/status', 'utf8'));
  return m ? Number(m[1]) / 1024 : null;
}

function stats(times) {
  const s = [...times].sort((x, y) => x - y);
  const n = s.length;
  const median = n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
  const p90 = s[Math.max(0, Math.ceil(0.9 * n) - 1)];  // nearest rank
  return { min: s[0], median, p90 };
}

const round = (x, d = 3) => (x === null ? null : Math.round(x * 10 ** d) / 10 ** d);

async function main() {
  const a = parseArgs(process.argv.slice(2));
  const options = {
    intraOpNumThreads: a.threads,
    interOpNumThreads: 1,
    graphOptimizationLevel: 'all',
    executionMode: 'sequential',
  };
  if (a.profile) Object.assign(options, { enableProfiling: true, profileFilePrefix: a.profile });
  let t0 = nowMs();
  const session = await ort.InferenceSession.create(a.model, options);
  const createMs = nowMs() - t0;

  const feeds = {};
  for (const name of session.inputNames) {
    const file = path.join(a.inputsDir, `${name}.npy`);
    if (!fs.existsSync(file)) throw new Error(`no input file ${file} for the model's input '${name}'`);
    const { type, dims, data } = readNpy(file);
    feeds[name] = new ort.Tensor(type, data, dims);
  }

  t0 = nowMs();
  const first = await session.run(feeds);
  const firstRunMs = nowMs() - t0;
  if (a.outputsDir) {
    fs.mkdirSync(a.outputsDir, { recursive: true });
    for (const name of session.outputNames) writeNpy(path.join(a.outputsDir, `${name}.npy`), first[name]);
  }
  for (const name of session.outputNames) if (first[name].dispose) first[name].dispose();

  for (let i = 0; i < a.warmup; ++i) await session.run(feeds);
  const times = [];
  for (let i = 0; i < a.runs; ++i) {
    t0 = nowMs();
    await session.run(feeds);
    times.push(nowMs() - t0);
  }
  const s = stats(times);
  const result = {
    create_ms: round(createMs),
    first_run_ms: round(firstRunMs),
    min_ms: round(s.min),
    median_ms: round(s.median),
    p90_ms: round(s.p90),
    peak_rss_mb: round(peakRssMb(), 1),
    tool: 'onnxruntime-node',
    version: ortVersion,
    threads: a.threads,
    runs: a.runs,
    warmup: a.warmup,
  };
  if (a.profile) {
    // endProfiling writes PREFIX_<date>.json and returns nothing in this binding: find the newest.
    await session.endProfiling();
    const dir = path.dirname(path.resolve(a.profile)), stem = path.basename(a.profile) + '_';
    const written = fs.readdirSync(dir).filter(f => f.startsWith(stem) && f.endsWith('.json'))
      .map(f => path.join(dir, f)).sort((x, y) => fs.statSync(y).mtimeMs - fs.statSync(x).mtimeMs);
    result.profile_file = written.length ? written[0] : null;
  }
  const text = JSON.stringify(result);
  if (a.json) fs.writeFileSync(a.json, text + '\n');
  process.stdout.write(text + '\n');
  if (session.release) await session.release();
}

main().catch(e => {
  process.stderr.write(`run_ort.js: ${e && e.stack ? e.stack : e}\n`);
  process.exit(1);
});
