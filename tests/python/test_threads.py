"""One session, many Python threads: identical results, and run() releases the GIL."""
import threading
import time

import numpy as np
from onnx import numpy_helper
from onnx import TensorProto, helper

import onyx
from conftest import make_model, tensor_info


def mlp_model(size, layers):
    nodes, inits, prev = [], [], "x"
    rng = np.random.default_rng(0)
    for i in range(layers):
        w = (rng.standard_normal((size, size)) / np.sqrt(size)).astype(np.float32)
        inits.append(numpy_helper.from_array(w, f"w{i}"))
        nodes.append(helper.make_node("MatMul", [prev, f"w{i}"], [f"m{i}"]))
        nodes.append(helper.make_node("Tanh", [f"m{i}"], [f"h{i}"]))
        prev = f"h{i}"
    nodes.append(helper.make_node("Identity", [prev], ["y"]))
    return make_model(nodes, [tensor_info("x", TensorProto.FLOAT, ["n", size])],
                      [tensor_info("y", TensorProto.FLOAT, ["n", size])], inits)


def test_threads_share_one_session():
    sess = onyx.InferenceSession(mlp_model(64, 4))
    rng = np.random.default_rng(1)
    feeds = [rng.standard_normal((8, 64)).astype(np.float32) for _ in range(8)]
    expected = [sess.run(None, {"x": f})[0] for f in feeds]
    errors, results = [], {}

    def worker(t):
        try:
            for k in range(25):
                i = (t + k) % len(feeds)
                (y,) = sess.run(["y"], {"x": feeds[i]})
                results.setdefault(t, []).append((i, y))
        except Exception as e:  # noqa: BLE001 (reported below)
            errors.append(e)

    threads = [threading.Thread(target=worker, args=(t,)) for t in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors
    assert sum(len(r) for r in results.values()) == 8 * 25
    for runs in results.values():
        for i, y in runs:
            np.testing.assert_array_equal(y, expected[i])


def test_run_releases_the_gil():
    sess = onyx.InferenceSession(mlp_model(256, 8))
    x = np.ones((256, 256), np.float32)
    sess.run(None, {"x": x})
    start = time.perf_counter()
    for _ in range(3):
        sess.run(None, {"x": x})
    one = (time.perf_counter() - start) / 3
    rows = int(min(max(256 * 0.3 / max(one, 1e-4), 256), 256 * 64))  # one run of ~0.3 s
    big = np.ones((rows, 256), np.float32)
    window = {}

    def worker():
        window["start"] = time.perf_counter()
        sess.run(None, {"x": big})
        window["end"] = time.perf_counter()

    ticks = []
    th = threading.Thread(target=worker)
    th.start()
    while th.is_alive():
        ticks.append(time.perf_counter())
        time.sleep(0.001)
    th.join()
    lo, hi = window["start"], window["end"]
    quarter = (hi - lo) / 4
    inside = [t for t in ticks if lo + quarter < t < hi - quarter]
    # Were the GIL held during run(), the main thread could not tick at all inside the call.
    assert len(inside) >= 5, f"{len(inside)} ticks in the middle of a {hi - lo:.3f} s run of {rows} rows"
