#!/usr/bin/env node
// ONNX Runtime side of the decoding comparison (bench/decode_compare.py), through bench/ort-node
// (onnxruntime-node 1.30, CPU execution provider).
//
//   node bench/run_ort_decode.js MODEL --prompt FILE.json --tokens N [--threads N] [--json FILE]
//
// MODEL is a decoder with a KV cache as bench/make_models.py's gpt2_decoder: int64 input_ids
// [batch,seq], past_key_{i} / past_value_{i} [batch,heads,past_seq,head_dim] -> logits
// [batch,seq,vocab], present_key_{i} / present_value_{i} [batch,heads,past_seq+seq,head_dim].
// FILE.json holds {"ids": [...]} (the prompt, batch 1). A decoder with seqlens_k and
// total_sequence_length (bench/make_gqa_decoder.py) keeps its cache in buffers of prompt + N
// positions, fed as the past and given as the pre-allocated present outputs of every step.
//
// Greedy decoding of N new tokens: the prompt step (the whole prompt, empty past tensors
// [1,heads,0,head_dim]) gives the first token (argmax of the last logits); then N-1 steps each
// feed the previous token with the previous run's present_* tensors as past_* (the result
// objects themselves, no copy in JS) and give the next token. Session: intraOpNumThreads N,
// interOpNumThreads 1, graphOptimizationLevel 'all', executionMode 'sequential'.
//
// Prints one JSON object on stdout (--json also writes it to FILE): create_ms, prompt_ms (the
// prompt step, run + argmax), ms_per_token (median over the N-1 single-token steps, each run +
// argmax), tokens_per_s ((N-1) / their total time), step_ms (every step), peak_rss_mb (VmHWM of
// this process, MB = 2^20 bytes) and generated_ids (the N tokens).
'use strict';
const fs = require('fs');
const path = require('path');

const ort = require(path.join(__dirname, 'ort-node', 'node_modules', 'onnxruntime-node'));
const ortVersion = require(path.join(__dirname, 'ort-node', 'node_modules', 'onnxruntime-node', 'package.json')).version;

function usage(msg) {
  if (msg) process.stderr.write(`run_ort_decode.js: ${msg}\n`);
  process.stderr.write('usage: node bench/run_ort_decode.js MODEL --prompt FILE.json --tokens N [--threads N] [--json FILE]\n');
  process.exit(2);
}

function parseArgs(argv) {
  const a = { model: null, prompt: null, tokens: 128, threads: 1, json: null };
  for (let i = 0; i < argv.length; ++i) {
    const k = argv[i];
    const next = () => { if (i + 1 >= argv.length) usage(`${k} needs a value`); return argv[++i]; };
    const int = (v, min) => { const n = Number(v); if (!Number.isInteger(n) || n < min) usage(`${k} takes an integer >= ${min}, got '${v}'`); return n; };
    if (k === '--threads') a.threads = int(next(), 1);
    else if (k === '--tokens') a.tokens = int(next(), 1);
    else if (k === '--prompt') a.prompt = next();
    else if (k === '--json') a.json = next();
    else if (k === '-h' || k === '--help') usage();
    else if (k.startsWith('-')) usage(`unknown option '${k}'`);
    else if (a.model === null) a.model = k;
    else usage(`unexpected argument '${k}'`);
  }
  if (!a.model) usage('no model given');
  if (!a.prompt) usage('--prompt is required');
  return a;
}

const nowMs = () => Number(process.hrtime.bigint()) / 1e6;

function peakRssMb() {
  const m = /^VmHWM:\s+(\d+)\s+kB/m.exec(fs.readFileSync('/proc/self/status', 'utf8'));
  return m ? Number(m[1]) / 1024 : null;
}

function median(xs) {
  const s = [...xs].sort((x, y) => x - y);
  const n = s.length;
  return n === 0 ? null : n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

const round = (x, d = 3) => (x === null ? null : Math.round(x * 10 ** d) / 10 ** d);

function halfToFloat(h) {  // IEEE binary16 bits -> number
  const s = h & 0x8000 ? -1 : 1, e = (h >> 10) & 0x1f, f = h & 0x3ff;
  if (e === 0) return s * f * 2 ** -24;
  if (e === 31) return f ? NaN : s * Infinity;
  return s * (1 + f / 1024) * 2 ** (e - 15);
}

// Index of the largest logit in the last position of logits [1, seq, vocab] (the first on ties).
function argmaxLast(logits) {
  const dims = logits.dims.map(Number);
  const vocab = dims[dims.length - 1];
  const data = logits.data;
  const start = data.length - vocab;
  const f16 = logits.type === 'float16' && !(typeof Float16Array !== 'undefined' && data instanceof Float16Array);
  let best = 0, bestV = -Infinity;
  for (let j = 0; j < vocab; ++j) {
    const v = f16 ? halfToFloat(data[start + j]) : data[start + j];
    if (v > bestV) { bestV = v; best = j; }
  }
  return best;
}

function emptyTensor(type, dims) {
  const size = dims.reduce((x, y) => x * y, 1);
  if (size !== 0) throw new Error('emptyTensor: non-empty dims');
  const arrays = { float32: Float32Array, float16: Uint16Array, float64: Float64Array };
  if (!arrays[type]) throw new Error(`past tensors of type ${type} are not supported`);
  return new ort.Tensor(type, new arrays[type](0), dims);
}

async function main() {
  const a = parseArgs(process.argv.slice(2));
  const prompt = JSON.parse(fs.readFileSync(a.prompt, 'utf8')).ids;
  const options = {
    intraOpNumThreads: a.threads,
    interOpNumThreads: 1,
    graphOptimizationLevel: 'all',
    executionMode: 'sequential',
  };
  let t0 = nowMs();
  const session = await ort.InferenceSession.create(a.model, options);
  const createMs = nowMs() - t0;

  // past_X -> present_X; the empty past from the input's metadata ([batch, heads, past, head_dim]).
  const pastNames = session.inputNames.filter(n => n.startsWith('past_'));
  for (const n of pastNames) {
    const p = n.replace(/^past_/, 'present_');
    if (!session.outputNames.includes(p)) throw new Error(`input ${n} has no output ${p}`);
  }
  // A GroupQueryAttention decoder (make_gqa_decoder.py) takes seqlens_k and total_sequence_length
  // and keeps its cache in place: each past_X is a [1, heads, prompt + tokens, head_dim] buffer,
  // given as the pre-allocated present_X output of every step too.
  const shared = session.inputNames.includes('seqlens_k');
  const maxSeq = prompt.length + a.tokens;
  const meta = Object.fromEntries((session.inputMetadata || []).map(m => [m.name, m]));
  const past = {};
  for (const n of pastNames) {
    const m = meta[n];
    if (!m || !m.shape || m.shape.length !== 4 || typeof m.shape[1] !== 'number' || typeof m.shape[3] !== 'number')
      throw new Error(`cannot tell the heads and head size of ${n} from its metadata ${JSON.stringify(m)}`);
    past[n] = shared ? new ort.Tensor('float32', new Float32Array(m.shape[1] * maxSeq * m.shape[3]), [1, m.shape[1], maxSeq, m.shape[3]])
                     : emptyTensor(m.type, [1, m.shape[1], 0, m.shape[3]]);
  }
  const fetches = shared ? Object.fromEntries([['logits', null], ...pastNames.map(n => [n.replace(/^past_/, 'present_'), past[n]])])
                         : undefined;

  const ids = [];
  const stepMs = [];
  let promptMs = null;
  let done = 0;
  let input = new ort.Tensor('int64', BigInt64Array.from(prompt, BigInt), [1, prompt.length]);
  for (let step = 0; step < a.tokens; ++step) {
    t0 = nowMs();
    const seq = Number(input.dims[1]);
    const feeds = { input_ids: input, ...past };
    if (shared) {
      feeds.seqlens_k = new ort.Tensor('int32', Int32Array.of(done + seq - 1), [1]);
      feeds.total_sequence_length = new ort.Tensor('int32', Int32Array.of(done + seq), []);
    }
    const res = shared ? await session.run(feeds, fetches) : await session.run(feeds);
    const tok = argmaxLast(res.logits);
    const dt = nowMs() - t0;
    if (step === 0) promptMs = dt; else stepMs.push(dt);
    ids.push(tok);
    done += seq;
    if (!shared) for (const n of pastNames) past[n] = res[n.replace(/^past_/, 'present_')];
    input = new ort.Tensor('int64', BigInt64Array.of(BigInt(tok)), [1, 1]);
  }
  const total = stepMs.reduce((x, y) => x + y, 0);
  const result = {
    create_ms: round(createMs),
    prompt_ms: round(promptMs),
    ms_per_token: round(median(stepMs)),
    tokens_per_s: stepMs.length ? round(stepMs.length / (total / 1000), 2) : null,
    peak_rss_mb: round(peakRssMb(), 1),
    tool: 'onnxruntime-node',
    version: ortVersion,
    threads: a.threads,
    prompt_len: prompt.length,
    tokens: a.tokens,
    step_ms: stepMs.map(x => round(x)),
    generated_ids: ids,
  };
  const text = JSON.stringify(result);
  if (a.json) fs.writeFileSync(a.json, text + '\n');
  process.stdout.write(text + '\n');
  if (session.release) await session.release();
}

main().catch(e => {
  process.stderr.write(`run_ort_decode.js: ${e && e.stack ? e.stack : e}\n`);
  process.exit(1);
});
