#!/usr/bin/python3
"""Generates the kernel cases (every gen_*.py beside this script) and runs them through
`onyx test`.

Each generator writes WORK/<name>/pass/CASE (must pass) and WORK/<name>/bad/CASE (bad input
onyx must refuse, with the expected error substring in expected_error.txt). Cases run in
batches of --batch folders per `onyx test` process, at most --jobs processes at once. A batch
process that dies on a signal, exits without a verdict for every folder, or runs past
--timeout is a crash of the folder it was on; the folders after it run again in a new process.

With --provider NAME (e.g. cuda) the pass cases run with that provider first in priority
order (nodes it has no kernel for run on the CPU, as in a session); bad cases run on the CPU
only. When the provider cannot run here (no GPU), the script prints why and exits 77, which
ctest reports as skipped.

A case fails when a pass case does not pass, when a bad case passes, fails with an error not
containing its expected substring, or crashes. Exits non-zero on any failure; the last line
is "N passed, N failed". Uses only the standard library (the generators need numpy and onnx).
"""
import argparse
import concurrent.futures
import glob
import os
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def run_generators(work, names, jobs):
    """name -> error text (empty when the generator succeeded)."""
    def gen(name):
        out = os.path.join(work, name)
        proc = subprocess.run([sys.executable, os.path.join(HERE, f"gen_{name}.py"), out], capture_output=True, text=True,
                              env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1"))
        if proc.returncode != 0:
            return name, f"exit {proc.returncode}: {proc.stderr.strip()[-1500:]}"
        return name, ""
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        return dict(pool.map(gen, names))


def run_batch(onyx, dirs, timeout, extra_args=()):
    """Runs folders through `onyx test`, restarting after a crash; folder -> (verdict, detail)
    with verdict PASS, FAIL, CRASH or TIMEOUT."""
    results = {}
    todo = list(dirs)
    while todo:
        timed_out = False
        try:
            proc = subprocess.run([onyx, "test"] + list(extra_args) + todo, capture_output=True, text=True, errors="replace", timeout=timeout)
            stdout, stderr, rc = proc.stdout, proc.stderr, proc.returncode
        except subprocess.TimeoutExpired as e:
            as_text = lambda b: b.decode(errors="replace") if isinstance(b, bytes) else (b or "")
            stdout, stderr, rc, timed_out = as_text(e.stdout), as_text(e.stderr), None, True
        verdicts = [l for l in stdout.splitlines() if l.startswith(("PASS ", "FAIL "))]
        for d, line in zip(todo, verdicts):
            case_id = os.path.basename(os.path.dirname(d)) + "/" + os.path.basename(d)
            if not line[5:].startswith((case_id + " ", case_id + ":")):
                raise RuntimeError(f"verdict out of order: expected {case_id}, got: {line}")
            if line.startswith("PASS "):
                results[d] = ("PASS", "")
            else:
                results[d] = ("FAIL", line.split(": ", 1)[1] if ": " in line else line)
        done = len(verdicts)
        if done >= len(todo):
            break
        stuck = todo[done]
        if timed_out:
            results[stuck] = ("TIMEOUT", f"no verdict after {timeout} s")
        elif rc is not None and rc < 0:
            results[stuck] = ("CRASH", f"{signal.Signals(-rc).name}; stderr: {stderr.strip()[-300:]}")
        else:
            results[stuck] = ("CRASH", f"exit {rc} without a verdict; stderr: {stderr.strip()[-300:]}")
        todo = todo[done + 1:]
    return results


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--onyx", required=True, help="path to the onyx binary")
    ap.add_argument("--work", required=True, help="folder for the generated cases (rewritten)")
    ap.add_argument("--jobs", type=int, default=2, help="processes at once (generators and onyx)")
    ap.add_argument("--batch", type=int, default=50, help="case folders per onyx process")
    ap.add_argument("--timeout", type=int, default=120, help="seconds per onyx process")
    ap.add_argument("--verbose", action="store_true", help="print every verdict")
    ap.add_argument("--provider", help="run the pass cases with this execution provider first (cuda)")
    ap.add_argument("--pregenerated", action="store_true",
                    help="run the cases already in --work (made here earlier, e.g. carried to a GPU machine) without generating")
    ap.add_argument("generators", nargs="*", help="only these generators (e.g. nn for gen_nn.py)")
    args = ap.parse_args()
    onyx = os.path.abspath(args.onyx)
    extra = []
    if args.provider:
        probe = subprocess.run([onyx, "providers", "--require", args.provider], capture_output=True, text=True)
        if probe.returncode != 0:
            print(probe.stdout + probe.stderr)
            print(f"skipped: the {args.provider} provider cannot run here")
            return 77 if probe.returncode == 77 else 1
        extra = ["--provider", args.provider]

    start = time.monotonic()
    names = sorted(os.path.basename(p)[4:-3] for p in glob.glob(os.path.join(HERE, "gen_*.py")))
    if args.generators:
        unknown = set(args.generators) - set(names)
        if unknown:
            sys.exit(f"unknown generators: {', '.join(sorted(unknown))} (have {', '.join(names)})")
        names = args.generators
    os.makedirs(args.work, exist_ok=True)
    gen_errors = {} if args.pregenerated else run_generators(args.work, names, args.jobs)
    gen_time = time.monotonic() - start

    cases = []  # (generator, kind, folder)
    for name in names:
        for kind in ("pass",) if args.provider else ("pass", "bad"):
            for d in sorted(glob.glob(os.path.join(args.work, name, kind, "*"))):
                cases.append((name, kind, d))
    folders = [d for _, _, d in cases]
    batches = [folders[i:i + args.batch] for i in range(0, len(folders), args.batch)]
    results = {}
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for r in pool.map(lambda b: run_batch(onyx, b, args.timeout, extra), batches):
            results.update(r)

    failures = []
    per_gen = {n: {"pass": [0, 0], "bad": [0, 0]} for n in names}
    for name, kind, d in cases:
        verdict, detail = results[d]
        label = f"{name}/{kind}/{os.path.basename(d)}"
        if kind == "pass":
            ok = verdict == "PASS"
            why = f"{verdict}: {detail}"
        else:
            with open(os.path.join(d, "expected_error.txt")) as f:
                expected = f.read().strip()
            ok = verdict == "FAIL" and expected in detail
            if verdict == "PASS":
                why = f"bad input accepted (expected an error containing '{expected}')"
            elif verdict == "FAIL":
                why = f"wrong error (expected '{expected}'): {detail}"
            else:
                why = f"{verdict}: {detail}"
        per_gen[name][kind][0] += ok
        per_gen[name][kind][1] += 1
        if not ok:
            failures.append(f"FAIL {label}: {why}")
        elif args.verbose:
            print(f"ok   {label}")

    for name in names:
        if gen_errors.get(name):
            failures.append(f"FAIL generator gen_{name}.py: {gen_errors[name]}")
    for line in failures:
        print(line)
    print(f"\n{'generator':16} {'pass cases':>12} {'bad cases':>12}")
    for name in names:
        p, b = per_gen[name]["pass"], per_gen[name]["bad"]
        print(f"{name:16} {p[0]:5} / {p[1]:<5} {b[0]:5} / {b[1]:<5}")
    total = time.monotonic() - start
    print(f"generation {gen_time:.1f} s, onyx runs {total - gen_time:.1f} s ({len(batches)} batches, {args.jobs} at once)")
    passed = len(cases) - sum(1 for l in failures if not l.startswith("FAIL generator"))
    print(f"{passed} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
