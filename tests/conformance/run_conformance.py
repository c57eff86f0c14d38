#!/usr/bin/env python3
"""Runs an ONNX backend test suite through `onyx test`.

Two suites: `--suite 1.12` (default), Debian's libonnx-testdata, with expected_pass.txt and
expected_differ.tsv; `--suite 1.23`, onnx 1.23's cases in shared/onnx-backend-1.23 of a folder
above the checkout (or $ONYX_ONNX_BACKEND_1_23), with expected_pass_onnx-1.23.txt and expected_differ_onnx-1.23.tsv.

Each case runs in its own process with a time limit, so a crash or a hang is reported as
such and cannot take the others down. With --check, exits non-zero when a case listed in
expected_pass.txt does not pass, when a case not listed there passes (the list must stay
honest), or when any case crashes or times out. --update adds newly passing cases to the
list (it never removes one). Uses only the standard library.
"""
import argparse
import concurrent.futures
import os
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
# suite name -> (data root, folders, expected-pass list, expected-differ list)
SUITE_FILES = {
    "1.12": ("/usr/share/libonnx-testdata/data", ["node", "pytorch-converted", "pytorch-operator", "simple"],
             "expected_pass.txt", "expected_differ.tsv"),
    "1.23": (os.environ.get("ONYX_ONNX_BACKEND_1_23") or None,
             ["node", "pytorch-converted", "pytorch-operator", "real", "simple"],
             "expected_pass_onnx-1.23.txt", "expected_differ_onnx-1.23.tsv"),
}
DATA, SUITES, EXPECTED, DIFFER = None, None, None, None  # set by select_suite()
SKIPPED = 77  # exit status when the suite's data is absent (ctest's SKIP_RETURN_CODE)


def find_shared(relative):
    """The first `shared/<relative>` in a folder above this checkout (../shared beside it)."""
    folder = HERE
    while True:
        candidate = os.path.join(folder, "shared", relative)
        if os.path.isdir(candidate):
            return candidate
        parent = os.path.dirname(folder)
        if parent == folder:
            return os.path.join(HERE, "..", "..", "..", "shared", relative)
        folder = parent


def select_suite(name):
    global DATA, SUITES, EXPECTED, DIFFER
    data, folders, expected, differ = SUITE_FILES[name]
    data = data or find_shared("onnx-backend-1.23")
    DATA, SUITES = os.path.normpath(data), folders
    EXPECTED, DIFFER = os.path.join(HERE, expected), os.path.join(HERE, differ)


def list_cases(filters):
    cases = []
    for suite in SUITES:
        root = os.path.join(DATA, suite)
        for name in sorted(os.listdir(root)) if os.path.isdir(root) else []:
            if os.path.exists(os.path.join(root, name, "model.onnx")):
                case_id = f"{suite}/{name}"
                if not filters or any(f in case_id for f in filters):
                    cases.append(case_id)
    return cases


def run_case(onyx, case_id, timeout, shapes_only=False):
    start = time.monotonic()
    flags = ["--shapes-only"] if shapes_only else []
    try:
        proc = subprocess.run([onyx, "test"] + flags + [os.path.join(DATA, case_id)], capture_output=True,
                              text=True, timeout=timeout, errors="replace")
    except subprocess.TimeoutExpired:
        return case_id, "TIMEOUT", f"no verdict after {timeout} s"
    elapsed = time.monotonic() - start
    if proc.returncode < 0:
        sig = signal.Signals(-proc.returncode).name
        return case_id, "CRASH", f"{sig}; stderr: {proc.stderr.strip()[-300:]}"
    if proc.returncode not in (0, 1):  # e.g. a sanitizer's report (LeakSanitizer exits 23)
        return case_id, "CRASH", f"exit {proc.returncode}; stderr: {proc.stderr.strip()[-600:]}"
    for line in proc.stdout.splitlines():
        if line.startswith("PASS "):
            return case_id, "PASS", f"{elapsed:.2f} s"
        if line.startswith("FAIL "):
            return case_id, "FAIL", line.split(": ", 1)[1] if ": " in line else line
    return case_id, "CRASH", f"exit {proc.returncode} without a verdict; stderr: {proc.stderr.strip()[-300:]}"


def read_expected():
    if not os.path.exists(EXPECTED):
        return set()
    with open(EXPECTED) as f:
        return {l.strip() for l in f if l.strip() and not l.startswith("#")}


def read_differ():
    """case id -> (kind, reason) for the cases expected not to pass."""
    out = {}
    if os.path.exists(DIFFER):
        with open(DIFFER) as f:
            for line in f:
                if line.strip() and not line.startswith("#"):
                    case_id, kind, reason = line.rstrip("\n").split("\t", 2)
                    out[case_id] = (kind, reason)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--onyx", required=True, help="path to the onyx binary")
    ap.add_argument("--suite", choices=sorted(SUITE_FILES), default="1.12", help="which backend suite")
    ap.add_argument("--check", action="store_true", help="compare with the suite's expected-pass list")
    ap.add_argument("--update", action="store_true", help="add newly passing cases to expected_pass.txt")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--timeout", type=int, default=300, help="seconds per case")
    ap.add_argument("--report", help="write a TSV of every verdict here")
    ap.add_argument("--verbose", action="store_true", help="print every verdict, not only failures")
    ap.add_argument("filters", nargs="*", help="only cases whose id contains one of these")
    args = ap.parse_args()
    select_suite(args.suite)
    if not os.path.isdir(DATA):
        print(f"SKIPPED: the {args.suite} suite's data is not at {DATA}")
        return SKIPPED

    cases = list_cases(args.filters)
    differ = read_differ()
    random_cases = [c for c in cases if differ.get(c, ("",))[0] == "random"]
    results, shape_results = {}, {}
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for case_id, verdict, detail in pool.map(lambda c: run_case(args.onyx, c, args.timeout), cases):
            results[case_id] = (verdict, detail)
        # Random ops cannot match their reference values; their dtypes and shapes still must.
        for case_id, verdict, detail in pool.map(lambda c: run_case(args.onyx, c, args.timeout, True), random_cases):
            shape_results[case_id] = (verdict, detail)

    expected = read_expected()
    passed = {c for c, (v, _) in results.items() if v == "PASS"}
    broken = sorted(c for c, (v, _) in results.items() if v in ("CRASH", "TIMEOUT"))
    regressions = sorted(c for c in expected if c in results and c not in passed)
    # A random-valued case (Bernoulli, training Dropout) may match its expected output by chance.
    unlisted = sorted(c for c in passed - expected if not (c in differ and differ[c][0] == "random"))
    unexplained = sorted(c for c in cases if c not in passed and c not in expected and c not in differ)
    bad_shapes = sorted(c for c, (v, _) in shape_results.items() if v != "PASS")

    for c in cases:
        verdict, detail = results[c]
        if c in differ and verdict == "FAIL":
            kind = differ[c][0]
            shape_note = ""
            if c in shape_results:
                shape_note = " (dtypes and shapes match)" if shape_results[c][0] == "PASS" else " (dtypes/shapes DIFFER)"
            print(f"DIFFER  {c}: expected ({kind}){shape_note}: {detail}")
        elif args.verbose or verdict != "PASS":
            print(f"{verdict:7} {c}: {detail}" if verdict != "PASS" else f"PASS    {c}")
    if args.report:
        with open(args.report, "w") as f:
            for c in cases:
                f.write(f"{c}\t{results[c][0]}\t{results[c][1]}\n")

    print("\nper suite (passed / cases):")
    for suite in SUITES:
        ids = [c for c in cases if c.startswith(suite + "/")]
        if ids:
            print(f"  {suite:18} {sum(c in passed for c in ids):5} / {len(ids)}")
    print(f"  {'all':18} {len(passed):5} / {len(cases)}")

    if args.update:
        merged = sorted(expected | passed)
        with open(EXPECTED, "w") as f:
            f.write(f"# ONNX backend {args.suite} cases onyx must pass (grow-only; maintained by run_conformance.py --update)\n")
            f.write("\n".join(merged) + "\n")
        print(f"{os.path.basename(EXPECTED)}: {len(merged)} cases ({len(merged) - len(expected)} added)")

    failed = 0
    if args.check:
        for c in regressions:
            print(f"REGRESSION {c}: expected to pass; {results[c][0]}: {results[c][1]}")
        for c in unlisted:
            print(f"UNLISTED   {c}: passes but is not in expected_pass.txt (run with --update)")
        for c in unexplained:
            print(f"UNEXPLAINED {c}: neither passes nor is listed in expected_differ.tsv: {results[c][1]}")
        for c in bad_shapes:
            print(f"SHAPES     {c}: random-valued case whose dtypes or shapes are wrong: {shape_results[c][1]}")
        failed = len(regressions) + len(unlisted) + len(unexplained) + len(bad_shapes)
    for c in broken:
        print(f"BROKEN     {c}: {results[c][0]}: {results[c][1]}")
    failed += len(broken)
    ok = len(passed & expected) if args.check else len(passed)
    print(f"{ok} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
