#!/usr/bin/python3
"""The benchmark GPT-2 as today's torch exports it (bench/make_gpt2_dynamo.py) against the
TorchScript-era gpt2_small (bench/make_models.py), under onyx and ONNX Runtime, with the
configurations interleaved: each round runs every configuration once as its own process, in an
order rotated every round, so a load that comes and goes on a shared machine falls on all of
them alike. A configuration's figure is the median over rounds of its process's median latency.

    /usr/bin/python3 bench/dynamo_compare.py [--rounds 5] [--threads 1] [--runs 8] [--warmup 2]
        [--seq 128] [--onyx build/onyx] [--ort-python PY] [--table-out bench/RESULTS.md]

Configurations: ORT and onyx on gpt2_small (onyx fuses it into MultiHeadAttention /
SkipLayerNormalization / FastGelu), ORT and onyx on gpt2_small_dynamo, and onyx on
gpt2_small_dynamo with --disable-optimizer onnx_attention_fusion (its ai.onnx Attention nodes
left to the Attention-23 kernel, between their head-split Reshape/Transposes). Before timing,
each model's logits under onyx are compared with ORT's on the same input_ids (bench/compare.py's
inputs for gpt2_small), and the two models' ORT logits with each other (same weights).

--decode-step PAST times one decoding step instead (input_ids [1, 1], a random float32 cache of PAST
tokens per layer) of make_models.py's gpt2_decoder and make_gpt2_dynamo.py's gpt2_decoder_dynamo,
all outputs (logits and presents) compared.
"""
import argparse
import datetime
import os
import shlex
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import compare  # noqa: E402

NO_FUSION = ["--disable-optimizer", "onnx_attention_fusion"]


def configurations(decoder):
    if decoder:
        return [("ORT", "gpt2_decoder", []), ("onyx", "gpt2_decoder", []), ("ORT", "gpt2_decoder_dynamo", []),
                ("onyx", "gpt2_decoder_dynamo", [])]
    return [("ORT", "gpt2_small", []), ("onyx", "gpt2_small", []), ("ORT", "gpt2_small_dynamo", []),
            ("onyx", "gpt2_small_dynamo", []), ("onyx", "gpt2_small_dynamo", NO_FUSION)]


def make_step_inputs(past, dirpath):
    """One decoding step of gpt2_decoder: input_ids [1, 1] and past_{key,value}_i [1, 12, PAST, 64]
    (standard normal), from a fixed seed."""
    import numpy as np
    os.makedirs(dirpath, exist_ok=True)
    rng = np.random.default_rng(past)
    np.save(os.path.join(dirpath, "input_ids.npy"), rng.integers(0, 50257, size=(1, 1), dtype=np.int64))
    for i in range(12):
        for kind in ("key", "value"):
            np.save(os.path.join(dirpath, f"past_{kind}_{i}.npy"), rng.standard_normal((1, 12, past, 64), dtype=np.float32))


def label(tool, model, extra):
    return f"{tool} {model}" + (" " + " ".join(extra) if extra else "")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models-dir", default=os.path.join(HERE, "models"))
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--runs", type=int, default=8)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--seq", type=int, default=128)
    ap.add_argument("--decode-step", type=int, metavar="PAST",
                    help="time one decoding step (one token after PAST cached ones) of gpt2_decoder and "
                         "gpt2_decoder_dynamo (make_gpt2_dynamo.py --models gpt2_decoder_dynamo) instead")
    ap.add_argument("--onyx", default=os.path.join("build", "onyx"))
    ap.add_argument("--ort-python", default=None, help="Python with onnxruntime (default: scripts/test_venv.sh's)")
    ap.add_argument("--work-dir", default=os.path.join(HERE, "work"))
    ap.add_argument("--timeout", type=int, default=1800)
    ap.add_argument("--table-out", help="append the table, the date and the command line to this file")
    a = ap.parse_args()
    if not a.ort_python:
        venv = subprocess.run([os.path.join(compare.ROOT, "scripts", "test_venv.sh")], capture_output=True, text=True,
                              check=True).stdout.strip()
        a.ort_python = os.path.join(venv, "bin", "python")
    decoder = a.decode_step is not None
    base, dynamo = ("gpt2_decoder", "gpt2_decoder_dynamo") if decoder else ("gpt2_small", "gpt2_small_dynamo")
    confs = configurations(decoder)
    for m in (base, dynamo):
        if not os.path.exists(os.path.join(a.models_dir, m + ".onnx")):
            sys.exit(f"{m}.onnx is missing from {a.models_dir} (bench/make_models.py, bench/make_gpt2_dynamo.py)")
    work = os.path.join(a.work_dir, "dynamo_compare" + (f"_step{a.decode_step}" if decoder else ""))
    os.makedirs(work, exist_ok=True)
    inputs = os.path.join(work, "inputs")
    if decoder:
        make_step_inputs(a.decode_step, inputs)
    else:
        compare.make_inputs("gpt2_small", 1, a.seq, inputs)
    input_names = sorted(f[:-4] for f in os.listdir(inputs) if f.endswith(".npy"))

    tool_args = argparse.Namespace(onyx=a.onyx, ort_only=False, ort_runner="python", ort_python=a.ort_python,
                                   onyx_arg=[])
    tools = compare.Tools(tool_args, work)
    if tools.onyx_note:
        sys.exit(f"onyx: {tools.onyx_note}")

    def command(tool, model, extra, json_path, outputs=None):
        path = os.path.join(a.models_dir, model + ".onnx")
        if tool == "ORT":
            return tools.ort_cmd(path, a.threads, 1 if outputs else a.runs, 0 if outputs else a.warmup, inputs,
                                 json_path, outputs)
        if outputs:
            tools.a.onyx_arg = extra
            return tools.onyx_run_cmd(path, inputs, outputs, input_names)
        return tools.onyx_bench_cmd(path, a.threads, a.runs, a.warmup, inputs, json_path) + extra

    # 1. outputs
    diffs, outs = {}, {}
    for tool, model, extra in confs:
        out = os.path.join(work, "out_" + label(tool, model, extra).replace(" ", "_"))
        ok, wall, detail = compare.run_proc(command(tool, model, extra, os.path.join(work, "o.json"), out), a.timeout)
        if not ok:
            sys.exit(f"{label(tool, model, extra)}: {detail}")
        outs[(tool, model, tuple(extra))] = out
    for tool, model, extra in confs:
        if tool == "onyx":
            d = compare.diff(os.path.join(a.models_dir, model + ".onnx"), outs[("ORT", model, ())],
                             outs[(tool, model, tuple(extra))])
            diffs[label(tool, model, extra)] = d
            compare.log(f"{label(tool, model, extra)} vs ORT {model}: max abs {d[0]:.2e}, rel {d[1]:.2e} {d[2]}")
    d = compare.diff(os.path.join(a.models_dir, base + ".onnx"), outs[("ORT", base, ())], outs[("ORT", dynamo, ())])
    compare.log(f"ORT {dynamo} vs ORT {base}: max abs {d[0]:.2e}, rel {d[1]:.2e} {d[2]}")
    diffs[f"ORT {dynamo} vs ORT {base}"] = d

    # 2. interleaved timing
    medians = {label(*c): [] for c in confs}
    rss = {label(*c): [] for c in confs}
    for r in range(a.rounds):
        order = confs[r % len(confs):] + confs[:r % len(confs)]
        for tool, model, extra in order:
            lab = label(tool, model, extra)
            js = os.path.join(work, "t.json")
            ok, wall, detail = compare.run_proc(command(tool, model, extra, js), a.timeout)
            if not ok:
                compare.log(f"round {r + 1} {lab}: {detail}")
                continue
            fig = compare.read_json(js)
            med = fig["median_ms"]
            medians[lab].append(med)
            rss[lab].append(fig.get("peak_rss_mb"))
            compare.log(f"round {r + 1}/{a.rounds} {lab}: median {med:.1f} ms")

    ort_fig = {m: statistics.median(medians[label("ORT", m, [])]) for m in (base, dynamo)}
    fused = statistics.median(medians[label("onyx", base, [])])
    lines = ["| configuration | median ms (median of rounds) | per-round medians | vs ORT, same model | "
             f"vs onyx on {base} | peak RSS MB |", "| --- | ---: | --- | ---: | ---: | ---: |"]
    for tool, model, extra in confs:
        lab = label(tool, model, extra)
        vals = medians[lab]
        med = statistics.median(vals) if vals else None
        lines.append(f"| {lab} | {compare.fmt(med)} | {' '.join(f'{v:.1f}' for v in vals)} | "
                     f"{compare.fmt(compare.ratio(med, ort_fig[model]), 2)} | {compare.fmt(compare.ratio(med, fused), 2)} | "
                     f"{compare.fmt(compare.median_fig([{'r': x} for x in rss[lab]], 'r'), 0)} |")
    lines.append("")
    what = f"logits and presents, one token after {a.decode_step}" if decoder else f"logits, seq {a.seq}"
    lines.append(f"| outputs ({what}) | max abs | max rel |")
    lines.append("| --- | ---: | ---: |")
    for k, (mx, rel, note) in diffs.items():
        lines.append(f"| {k}{' vs ORT' if k.startswith('onyx') else ''} | {compare.fmt_e(mx)} | {compare.fmt_e(rel)} |")
    table = "\n".join(lines)
    print(table)
    if a.table_out:
        cmd = "/usr/bin/python3 " + " ".join(shlex.quote(x) for x in sys.argv)
        with open(a.table_out, "a") as f:
            f.write(f"\n{datetime.datetime.now(datetime.timezone.utc).isoformat(timespec='minutes')}, "
                    f"{compare.machine(tool_args)}; threads {a.threads}, "
                    f"{f'one decoding step after {a.decode_step} tokens' if decoder else f'seq {a.seq}'}, batch 1, "
                    f"{a.rounds} rounds x ({a.warmup}+{a.runs}) runs:\n`{cmd}`\n\n{table}\n")


if __name__ == "__main__":
    main()
