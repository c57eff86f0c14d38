"""The wheel as a pip user gets it (ctest python_wheel): builds onyx's wheel from an existing
build folder (pip wheel --no-build-isolation, so only the packaged targets are relinked),
checks what it holds and declares, installs it into a fresh virtual environment and uses it
there: `import onyx` runs a model, the `onyx` console script runs one, and
onyx.ort_library_path() names the libonnxruntime.so.1 inside the installation.

    <test venv>/bin/python tests/packaging/check_wheel.py BUILD_DIR WORK_DIR

Needs setuptools and wheel in the running interpreter (the test venv has them); numpy for the
fresh venv comes from the running interpreter's site-packages (a .pth), so nothing is
downloaded. Prints a verdict per check and "N passed, N failed"; exits 1 on any failure.
"""
import glob
import os
import shutil
import subprocess
import sys
import sysconfig
import time
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
build, work = (os.path.abspath(a) for a in sys.argv[1:3])
results = []


def check(ok, what, detail=""):
    results.append(ok)
    print(("PASS " if ok else "FAIL ") + what + (f": {detail}" if detail and not ok else ""), flush=True)
    return ok


shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
env = dict(os.environ, ONYX_BUILD_DIR=build, PIP_DISABLE_PIP_VERSION_CHECK="1")
start = time.time()
proc = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-build-isolation", "--no-deps", "-q", "-w",
                       os.path.join(work, "dist"), ROOT], env=env, capture_output=True, text=True)
if not check(proc.returncode == 0, "pip wheel builds the wheel", proc.stderr[-3000:]):
    sys.exit(1)
wheel = glob.glob(os.path.join(work, "dist", "onyx-*.whl"))[0]
print(f"wheel {os.path.basename(wheel)}: {os.path.getsize(wheel) / 2**20:.1f} MiB, built in {time.time() - start:.1f} s")

names = zipfile.ZipFile(wheel).namelist()
suffix = sysconfig.get_config_var("EXT_SUFFIX")
for member in [f"onyx/_onyx{suffix}", "onyx/bin/onyx", "onyx/lib/libonnxruntime.so.1", "onyx/__init__.py",
               "onyx/capi/onnxruntime_inference_collection.py", "onyx/training/ortmodule/__init__.py"]:
    check(member in names, f"the wheel holds {member}")
dist_info = next(n.split("/")[0] for n in names if n.endswith(".dist-info/METADATA"))
with zipfile.ZipFile(wheel) as z:
    metadata = z.read(f"{dist_info}/METADATA").decode()
    entry_points = z.read(f"{dist_info}/entry_points.txt").decode()
check("onyx = onyx._native:main" in entry_points, "the onyx console script is declared", entry_points)
check("Provides-Extra: test" in metadata and 'onnxruntime==1.30.0; extra == "test"' in metadata,
      "the test extra pins onnxruntime 1.30.0 (requirements/test.txt)", metadata[:2000])
check("Requires-Dist: numpy" in metadata, "numpy is a dependency")

venv = os.path.join(work, "venv")
subprocess.run([sys.executable, "-m", "venv", venv], check=True)
vpython = os.path.join(venv, "bin", "python")
site = subprocess.run([vpython, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                      capture_output=True, text=True, check=True).stdout.strip()
import numpy  # noqa: E402  (the running interpreter's, lent to the fresh venv)
with open(os.path.join(site, "borrowed_numpy.pth"), "w") as f:
    f.write(os.path.dirname(os.path.dirname(numpy.__file__)) + "\n")
proc = subprocess.run([vpython, "-m", "pip", "install", "-q", "--no-index", "--no-deps", wheel], capture_output=True,
                      text=True, env=env)
check(proc.returncode == 0, "pip installs the wheel into a fresh venv", proc.stderr[-2000:])

# Outside the checkout, so that nothing but the installed package can be imported.
script = f"""
import os, numpy as np, onyx
assert onyx.__file__.startswith({venv!r}), onyx.__file__
s = onyx.InferenceSession({os.path.join(ROOT, 'models', 'stripes.onnx')!r})
p = s.run(None, {{"image": np.load({os.path.join(ROOT, 'models', 'vertical.npy')!r})}})[0]
assert p.shape == (1, 3) and int(p.argmax()) == 0, p
lib = onyx.ort_library_path()
assert lib.startswith({venv!r}) and os.path.exists(lib), lib
print("ok")
"""
proc = subprocess.run([vpython, "-c", script], capture_output=True, text=True, cwd=work,
                      env=dict(os.environ, PYTHONPATH=""))
check(proc.returncode == 0 and proc.stdout.strip() == "ok",
      "import onyx in the venv runs models/stripes.onnx from the installed package", proc.stderr[-2000:])
proc = subprocess.run([os.path.join(venv, "bin", "onyx"), "run", os.path.join(ROOT, "models", "stripes.onnx"),
                       "--input", "image=" + os.path.join(ROOT, "models", "vertical.npy")],
                      capture_output=True, text=True, cwd=work)
check(proc.returncode == 0 and "probabilities" in proc.stdout, "the onyx console script runs a model",
      proc.stdout[-1000:] + proc.stderr[-1000:])

failed = results.count(False)
print(f"{len(results) - failed} passed, {failed} failed")
sys.exit(1 if failed else 0)
