#!/usr/bin/python3
"""Token-by-token (greedy) decoding, onyx next to ONNX Runtime 1.30 (onnxruntime-node, CPU), on a
decoder with a KV cache (bench/make_models.py's gpt2_decoder, or a quantized copy of it).

    /usr/bin/python3 bench/decode_compare.py [--model bench/models/gpt2_decoder.onnx]
        [--threads 1,2] [--tokens 128] [--prompt-len 128] [--rounds 3] [--table-out FILE]
        [--onyx-config KEY=VALUE]...
    /usr/bin/python3 bench/decode_compare.py --model QUANTIZED.onnx --accuracy REF.onnx [--tokens 128]

Both tools run the same loop on the same file, batch 1: a fixed prompt (PROMPT_LEN ids uniform
in [0, 50257), seed 0) with empty past tensors [1,heads,0,head_dim]; the argmax of its last
logits is the first new token; then TOKENS-1 steps each feed the previous token with the
previous step's present_* as past_* and take the argmax of the logits: TOKENS new tokens.
  ORT:  node bench/run_ort_decode.js MODEL --prompt P.json --tokens N --threads T --json F
        (intraOpNumThreads T, interOpNumThreads 1, graphOptimizationLevel all, sequential; the
        previous results' present tensors are the next feeds)
  onyx: this script with --child (PYTHONPATH=build/python, OMP_NUM_THREADS=T), onyx's Python API:
        SessionOptions.intra_op_num_threads T (inter-op 1, sequential, ORT_ENABLE_ALL) and an
        IoBinding: input_ids and the past bound as OrtValues, the outputs bound to 'cpu'; the
        OrtValues of get_outputs() are bound as the next step's past (no copy of the cache);
        --plain-run uses InferenceSession.run with numpy arrays instead.
Each measurement is a fresh process; the tools alternate in rounds (ORT then onyx, then onyx then
ORT, ...) and a figure is the median over rounds. Per process: create_ms (session creation),
prompt_ms (the prompt step), ms_per_token (median single-token step, run + argmax), tokens_per_s
((TOKENS-1) / the time of the single-token steps: the prompt excluded), peak_rss_mb (VmHWM) and
the generated ids, which are compared between the tools.

--accuracy REF.onnx: onyx only. REF (float32) decodes greedily as above; then --model runs with
teacher forcing over REF's tokens (the same prompt, then REF's tokens fed one by one). Per step
(the prompt step included: TOKENS logit vectors) the cosine similarity of the two models' logits
(min, mean) and the top-1 agreement (argmax of --model's logits == REF's token).
--onyx-config entries apply to --model only, so `--model REF.onnx --accuracy REF.onnx --onyx-config onyx.cpu.gemm_bf16=1` measures
bfloat16 weights against float32.
"""
import argparse
import datetime
import json
import os
import shlex
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
VOCAB = 50257
PROMPT_SEED = 0


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def peak_rss_mb():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return None


# ---- the onyx child ---------------------------------------------------------------------------

class OnyxDecoder:
    """One session and the decoding loop, through an IoBinding (or plain run)."""

    def __init__(self, model, threads, plain_run=False, config=()):
        import numpy as np
        import onyx as ort
        self.np, self.ort, self.plain = np, ort, plain_run
        so = ort.SessionOptions()
        for entry in config:  # --onyx-config KEY=VALUE
            key, _, value = entry.partition("=")
            so.add_session_config_entry(key, value)
        so.intra_op_num_threads = threads
        so.inter_op_num_threads = 1
        so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        t0 = time.perf_counter()
        self.sess = ort.InferenceSession(model, so, providers=["CPUExecutionProvider"])
        self.create_ms = (time.perf_counter() - t0) * 1e3
        types = {"tensor(float)": np.float32, "tensor(float16)": np.float16, "tensor(double)": np.float64}
        self.past_names, self.empty = [], {}
        outputs = [o.name for o in self.sess.get_outputs()]
        for i in self.sess.get_inputs():
            if not i.name.startswith("past_"):
                continue
            if i.name.replace("past_", "present_", 1) not in outputs:
                raise SystemExit(f"input {i.name} has no output {i.name.replace('past_', 'present_', 1)}")
            if len(i.shape) != 4 or not all(isinstance(d, int) for d in (i.shape[1], i.shape[3])):
                raise SystemExit(f"cannot tell the heads and head size of {i.name} from its shape {i.shape}")
            self.past_names.append(i.name)
            self.empty[i.name] = np.zeros((1, i.shape[1], 0, i.shape[3]), dtype=types[i.type])
        self.out_names = ["logits"] + [n.replace("past_", "present_", 1) for n in self.past_names]
        self.binding = None if plain_run else self.sess.io_binding()
        # A GroupQueryAttention decoder (make_gqa_decoder.py): the cache is one buffer per past of
        # prompt + tokens positions, bound as that past and as its present (updated in place).
        self.shared = "seqlens_k" in [i.name for i in self.sess.get_inputs()]

    def start_shared(self, positions):
        """Zeroed cache buffers of POSITIONS rows; with an IoBinding, bound once as both the
        past and the present of every step."""
        np, OrtValue = self.np, self.ort.OrtValue
        self.cache = {n: np.zeros(self.empty[n].shape[:2] + (positions,) + self.empty[n].shape[3:], self.empty[n].dtype)
                      for n in self.past_names}
        if self.plain:
            return
        b = self.binding
        b.clear_binding_inputs()
        b.clear_binding_outputs()
        b.bind_output("logits", "cpu")
        for n in self.past_names:
            v = OrtValue.ortvalue_from_numpy(self.cache[n])
            b.bind_ortvalue_input(n, v)
            b.bind_ortvalue_output(n.replace("past_", "present_", 1), v)

    def step_shared(self, ids, done):
        """One step of the shared-cache decoder: DONE tokens are in the cache already."""
        np, OrtValue = self.np, self.ort.OrtValue
        seq = ids.shape[1]
        lens = np.array([done + seq - 1], np.int32)
        total = np.array(done + seq, np.int32)
        if self.plain:
            res = self.sess.run(self.out_names, {"input_ids": ids, **self.cache, "seqlens_k": lens,
                                                 "total_sequence_length": total})
            self.cache = dict(zip(self.past_names, res[1:]))
            return res[0][0, -1]
        b = self.binding
        b.bind_ortvalue_input("input_ids", OrtValue.ortvalue_from_numpy(ids))
        b.bind_ortvalue_input("seqlens_k", OrtValue.ortvalue_from_numpy(lens))
        b.bind_ortvalue_input("total_sequence_length", OrtValue.ortvalue_from_numpy(total))
        self.sess.run_with_iobinding(b)
        return np.asarray(b.get_outputs()[0].numpy())[0, -1]

    def step(self, ids, past):
        """Runs input_ids IDS (int64 [1, n]) with PAST (name -> OrtValue or array); returns the
        last position's logits (a numpy row) and the presents as the next past."""
        np = self.np
        if self.plain:
            res = self.sess.run(self.out_names, {"input_ids": ids, **past})
            return res[0][0, -1], dict(zip(self.past_names, res[1:]))
        b = self.binding
        OrtValue = self.ort.OrtValue
        b.bind_ortvalue_input("input_ids", OrtValue.ortvalue_from_numpy(ids))
        for n in self.past_names:
            v = past[n]
            b.bind_ortvalue_input(n, v if isinstance(v, OrtValue) else OrtValue.ortvalue_from_numpy(v))
        # Rebound every step: a bound output that holds the previous step's value would be reused
        # as its buffer, and that value is this step's past.
        b.clear_binding_outputs()
        for n in self.out_names:
            b.bind_output(n, "cpu")
        self.sess.run_with_iobinding(b)
        outs = b.get_outputs()
        logits = np.asarray(outs[0].numpy())[0, -1]
        return logits, dict(zip(self.past_names, outs[1:]))

    def decode(self, prompt, tokens, forced=None, keep_logits=False):
        """Greedy decoding of TOKENS new tokens (or, with FORCED, teacher forcing: step k feeds
        FORCED[k-1]). Returns (ids, prompt_ms, step_ms, logits rows or None)."""
        np = self.np
        past = dict(self.empty)
        ids = np.asarray([prompt], dtype=np.int64)
        out, kept, step_ms, prompt_ms = [], [], [], None
        if self.shared:
            self.start_shared(len(prompt) + tokens)
        for k in range(tokens):
            t0 = time.perf_counter()
            if self.shared:
                logits = self.step_shared(ids, len(prompt) + k - 1 if k else 0)
            else:
                logits, past = self.step(ids, past)
            tok = int(np.argmax(logits))
            dt = (time.perf_counter() - t0) * 1e3
            if k == 0:
                prompt_ms = dt
            else:
                step_ms.append(dt)
            out.append(tok)
            if keep_logits:
                kept.append(np.asarray(logits, dtype=np.float32).copy())
            ids = np.asarray([[forced[k] if forced is not None else tok]], dtype=np.int64)
        return out, prompt_ms, step_ms, (np.stack(kept) if keep_logits else None)


def child(a):
    with open(a.prompt_file) as f:
        prompt = json.load(f)["ids"]
    forced = None
    if a.forced:
        with open(a.forced) as f:
            forced = json.load(f)["generated_ids"]
        if len(forced) < a.tokens:
            raise SystemExit(f"{a.forced} has {len(forced)} tokens, fewer than --tokens {a.tokens}")
    dec = OnyxDecoder(a.model, a.child_threads, a.plain_run, a.onyx_config)
    ids, prompt_ms, step_ms, logits = dec.decode(prompt, a.tokens, forced, keep_logits=bool(a.save_logits))
    if a.save_logits:
        import numpy as np
        np.save(a.save_logits, logits)
    total = sum(step_ms)
    result = {
        "create_ms": round(dec.create_ms, 3), "prompt_ms": round(prompt_ms, 3),
        "ms_per_token": round(statistics.median(step_ms), 3) if step_ms else None,
        "tokens_per_s": round(len(step_ms) / (total / 1e3), 2) if step_ms else None,
        "peak_rss_mb": round(peak_rss_mb(), 1), "tool": "onyx", "version": dec.ort.__version__,
        "io": "run" if a.plain_run else "iobinding", "threads": a.child_threads, "prompt_len": len(prompt),
        "tokens": a.tokens, "step_ms": [round(x, 3) for x in step_ms], "generated_ids": ids,
    }
    text = json.dumps(result)
    if a.json:
        with open(a.json, "w") as f:
            f.write(text + "\n")
    print(text)


# ---- the parent -------------------------------------------------------------------------------

def run_proc(cmd, timeout, env=None):
    """(ok, wall_s, stdout or a failure line)."""
    t0 = time.time()
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return False, time.time() - t0, f"timed out after {timeout} s"
    if p.returncode != 0:
        lines = [l for l in (p.stderr + "\n" + p.stdout).splitlines() if l.strip()]
        return False, time.time() - t0, f"exit {p.returncode}: " + " | ".join(lines[-3:])
    return True, time.time() - t0, p.stdout


def onyx_cmd(a, model, threads, tokens, prompt_file, json_path, extra=()):
    cmd = [sys.executable, os.path.abspath(__file__), "--child", "--model", model, "--child-threads", str(threads),
           "--tokens", str(tokens), "--prompt-file", prompt_file, "--json", json_path]
    for entry in a.onyx_config:
        cmd += ["--onyx-config", entry]
    return cmd + (["--plain-run"] if a.plain_run else []) + list(extra)


def onyx_env(a, threads):
    env = dict(os.environ)
    env["OMP_NUM_THREADS"] = str(threads)
    env["PYTHONPATH"] = a.onyx_python + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def ort_cmd(model, threads, tokens, prompt_file, json_path):
    return ["node", os.path.join(HERE, "run_ort_decode.js"), model, "--threads", str(threads), "--tokens", str(tokens),
            "--prompt", prompt_file, "--json", json_path]


def snapshot_onyx(a):
    """Copies onyx's Python package (symlinks followed) into the work dir and checks that it
    imports, so that a rebuild during the comparison does not mix two builds."""
    import shutil
    snap = os.path.join(a.work_dir, "onyx-python-snapshot")
    shutil.rmtree(snap, ignore_errors=True)
    shutil.copytree(a.onyx_python, snap, symlinks=False, ignore=shutil.ignore_patterns("__pycache__"))
    p = subprocess.run([sys.executable, "-c", "import onyx; print(onyx.__version__)"], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, env={**os.environ, "PYTHONPATH": snap})
    if p.returncode != 0:
        sys.exit(f"onyx's Python package ({a.onyx_python}, copied to {snap}) does not import: "
                 + " | ".join(p.stdout.strip().splitlines()[-2:]))
    import glob
    libs = glob.glob(os.path.join(a.onyx_python, "onyx", "_onyx*.so")) or [os.path.join(a.onyx_python, "onyx")]
    a.onyx_stamp = datetime.datetime.fromtimestamp(max(map(os.path.getmtime, libs))).isoformat(timespec="seconds")
    a.onyx_python = snap


def write_prompt(work, n):
    import numpy as np
    ids = np.random.default_rng(PROMPT_SEED).integers(0, VOCAB, size=n, dtype=np.int64).tolist()
    path = os.path.join(work, f"prompt_{n}.json")
    with open(path, "w") as f:
        json.dump({"seed": PROMPT_SEED, "ids": ids}, f)
    return path


def machine():
    import compare  # bench/compare.py: the CPU model name and onnxruntime-node's version
    return compare.machine()


def table(header, body):
    out = ["| " + " | ".join(header) + " |", "|" + "|".join(" --- " for _ in header) + "|"]
    return "\n".join(out + ["| " + " | ".join(row) + " |" for row in body])


def fmt(x, digits=1):
    return "n/a" if x is None else f"{x:.{digits}f}"


def med(results, key):
    vals = [r[key] for r in results if r.get(key) is not None]
    return statistics.median(vals) if vals else None


def same_ids(x, y):
    if x == y:
        return "yes"
    k = next((i for i, (p, q) in enumerate(zip(x, y)) if p != q), min(len(x), len(y)))
    return f"no: from token {k}"


def speed(a, label, prompt_file):
    rows, details, problems = [], [], []
    for t in a.threads:
        res, ids = {"ort": [], "onyx": []}, {"ort": [], "onyx": []}
        for r in range(a.rounds):
            for tool in (["ort", "onyx"] if r % 2 == 0 else ["onyx", "ort"]):
                jp = os.path.join(a.work_dir, f"{tool}_t{t}_r{r}.json")
                if os.path.exists(jp):
                    os.remove(jp)
                if tool == "ort":
                    ok, wall, out = run_proc(ort_cmd(a.model, t, a.tokens, prompt_file, jp), a.timeout)
                else:
                    ok, wall, out = run_proc(onyx_cmd(a, a.model, t, a.tokens, prompt_file, jp), a.timeout,
                                             onyx_env(a, t))
                if not ok:
                    problems.append(f"threads {t} round {r + 1}: {tool} failed: {out}")
                    log(problems[-1])
                    continue
                with open(jp) as f:
                    j = json.load(f)
                res[tool].append(j)
                ids[tool].append(j["generated_ids"])
                log(f"{label} threads {t} round {r + 1}/{a.rounds}: {tool:4s} {j['tokens_per_s']} tokens/s "
                    f"({j['ms_per_token']:.2f} ms/token), prompt {j['prompt_ms']:.1f} ms, create "
                    f"{j['create_ms']:.0f} ms, peak RSS {j['peak_rss_mb']:.0f} MB, process {wall:.1f} s")
        o = {k: med(res["ort"], k) for k in ("create_ms", "prompt_ms", "ms_per_token", "tokens_per_s", "peak_rss_mb")}
        x = {k: med(res["onyx"], k) for k in o}
        for tool in ("ort", "onyx"):  # every round of a tool must give the same tokens
            if any(i != ids[tool][0] for i in ids[tool][1:]):
                problems.append(f"threads {t}: {tool}'s rounds generated different tokens")
        same = same_ids(ids["ort"][0], ids["onyx"][0]) if ids["ort"] and ids["onyx"] else "n/a"
        ratio = (x["ms_per_token"] / o["ms_per_token"]) if o["ms_per_token"] and x["ms_per_token"] else None
        rows.append([label, str(t), f"{a.prompt_len}+{a.tokens}", fmt(o["tokens_per_s"], 2), fmt(x["tokens_per_s"], 2),
                     fmt(ratio, 2), fmt(o["prompt_ms"]), fmt(x["prompt_ms"]), same])
        for tool, f, n in (("ORT", o, len(res["ort"])), ("onyx", x, len(res["onyx"]))):
            details.append([label, str(t), tool + (" (run)" if tool == "onyx" and a.plain_run else ""),
                            fmt(f["tokens_per_s"], 2), fmt(f["ms_per_token"], 2), fmt(f["prompt_ms"]),
                            fmt(f["create_ms"], 0), fmt(f["peak_rss_mb"], 0), str(n)])
        if ids["ort"] and ids["onyx"]:
            log(f"threads {t}: ORT ids {ids['ort'][0][:16]}...; onyx ids {ids['onyx'][0][:16]}...; same: {same}")
    text = [table(["model", "threads", "prompt+tokens", "ORT tokens/s", "onyx tokens/s", "onyx/ORT ms per token",
                   "ORT prompt ms", "onyx prompt ms", "same tokens"], rows), "",
            table(["model", "threads", "tool", "tokens/s", "median ms/token", "prompt ms", "create ms",
                   "peak RSS MB", "processes"], details)]
    return text, problems


def accuracy(a, label, prompt_file):
    import numpy as np
    rows, problems, t = [], [], a.threads[0]
    files = {}
    for name, model, extra in (("ref", a.accuracy, []), ("model", a.model, None)):
        jp = os.path.join(a.work_dir, f"acc_{name}.json")
        lp = os.path.join(a.work_dir, f"acc_{name}_logits.npy")
        if extra is None:
            extra = ["--forced", files["ref"][0]]
        # --onyx-config applies to --model only: the reference runs as it is.
        how = a if name == "model" else argparse.Namespace(**{**vars(a), "onyx_config": []})
        ok, wall, out = run_proc(onyx_cmd(how, model, t, a.tokens, prompt_file, jp, extra + ["--save-logits", lp]),
                                 a.timeout, onyx_env(a, t))
        if not ok:
            raise SystemExit(f"onyx on {model} failed: {out}")
        log(f"accuracy: onyx on {model}: {wall:.1f} s")
        files[name] = (jp, lp)
    ref, got = np.load(files["ref"][1]).astype(np.float64), np.load(files["model"][1]).astype(np.float64)
    with open(files["ref"][0]) as f:
        ref_ids = json.load(f)["generated_ids"]
    cos = (ref * got).sum(1) / (np.linalg.norm(ref, axis=1) * np.linalg.norm(got, axis=1))
    top1 = float(np.mean(got.argmax(1) == np.asarray(ref_ids)))
    worst = int(np.argmin(cos))
    log(f"accuracy: per-step cosine {' '.join(f'{c:.5f}' for c in cos[:16])}{' ...' if len(cos) > 16 else ''}")
    rows.append([label, os.path.basename(a.accuracy), f"{a.prompt_len}+{a.tokens}", f"{cos.min():.5f} (step {worst})",
                 f"{cos.mean():.5f}", f"{top1 * 100:.1f}% ({int(round(top1 * len(cos)))}/{len(cos)})",
                 f"{np.abs(got - ref).max():.3g}"])
    return [table(["model", "reference", "prompt+tokens", "min cosine", "mean cosine", "top-1 agreement",
                   "max abs logit diff"], rows)], problems


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default=os.path.join(HERE, "models", "gpt2_decoder.onnx"))
    ap.add_argument("--threads", default="1,2", help="comma-separated intra-op thread counts (default 1,2)")
    ap.add_argument("--tokens", type=int, default=128, help="new tokens, the prompt step's included (default 128)")
    ap.add_argument("--prompt-len", type=int, default=128)
    ap.add_argument("--rounds", type=int, default=3, help="alternating ORT/onyx process pairs (default 3)")
    ap.add_argument("--accuracy", metavar="REF.onnx", help="onyx only: --model against REF with teacher forcing")
    ap.add_argument("--plain-run", action="store_true", help="onyx: InferenceSession.run instead of an IoBinding")
    ap.add_argument("--onyx-config", action="append", default=[], metavar="KEY=VALUE",
                    help="onyx: a session config entry (repeatable), e.g. onyx.cpu.gemm_bf16=1 for bfloat16 weights")
    ap.add_argument("--onyx-python", default=os.path.join(ROOT, "build", "python"), help="onyx's Python package dir (default build/python; copied into the work dir first)")
    ap.add_argument("--timeout", type=int, default=1800, help="seconds allowed to one process")
    ap.add_argument("--work-dir", default=os.path.join(HERE, "work", "decode"))
    ap.add_argument("--table-out", help="append the table, the date, the machine and the command line to this file")
    # the onyx child process
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--child-threads", type=int, default=1, help=argparse.SUPPRESS)
    ap.add_argument("--prompt-file", help=argparse.SUPPRESS)
    ap.add_argument("--json", help=argparse.SUPPRESS)
    ap.add_argument("--forced", help=argparse.SUPPRESS)
    ap.add_argument("--save-logits", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.tokens < 1:
        sys.exit("--tokens must be >= 1")
    if a.child:
        return child(a)

    a.model = os.path.abspath(a.model)
    a.threads = [int(t) for t in a.threads.split(",") if t.strip()]
    for p in [a.model] + ([a.accuracy] if a.accuracy else []):
        if not os.path.exists(p):
            sys.exit(f"{p} is missing (bench/make_models.py --models gpt2_decoder builds gpt2_decoder.onnx)")
    if a.prompt_len + a.tokens > 1024:
        log(f"warning: {a.prompt_len}+{a.tokens} positions exceed GPT-2's 1024")
    os.makedirs(a.work_dir, exist_ok=True)
    a.onyx_python_src = a.onyx_python
    snapshot_onyx(a)
    prompt_file = write_prompt(a.work_dir, a.prompt_len)
    command = "/usr/bin/python3 " + " ".join(shlex.quote(x) for x in sys.argv)
    label = os.path.basename(a.model)
    text, problems = accuracy(a, label, prompt_file) if a.accuracy else speed(a, label, prompt_file)
    if problems:
        text += [""] + [f"- {p}" for p in problems]
    body = "\n".join(text)
    print(body)
    if a.table_out:
        stamp = datetime.datetime.now().astimezone().isoformat(timespec="seconds")
        onyx_io = "InferenceSession.run" if a.plain_run else "IoBinding"
        head = [f"## {stamp}", "", f"`{command}`", "", f"Machine: {machine()}.",
                f"onyx: Python API from {a.onyx_python_src} built {a.onyx_stamp} ({onyx_io}); prompt {a.prompt_len} ids (seed {PROMPT_SEED}), "
                f"greedy, batch 1."]
        with open(a.table_out, "a") as f:
            f.write("\n".join(head) + "\n\n" + body + "\n\n")
        log(f"appended to {a.table_out}")


if __name__ == "__main__":
    main()
