// Per-call cost of a run through onnxruntime-node on a tiny model (issue 24): the binding is
// the same; which libonnxruntime.so.1 it runs on is whichever the loader finds (ORT's own from
// the npm package, or onyx's first on LD_LIBRARY_PATH). Prints one JSON line: the library the
// process mapped, and the median and 10th percentile of per-run microseconds over `batches`
// batches of `runs` awaited runs each (after a warm-up).
//
//     node bench/node_overhead.js MODEL [runs=2000] [batches=15]
const fs = require("fs");
const path = require("path");
const ort = require(path.join(__dirname, "..", "tests", "node", "node_modules", "onnxruntime-node"));

const [model, runs = "2000", batches = "15"] = process.argv.slice(2);
(async () => {
  const session = await ort.InferenceSession.create(model, { intraOpNumThreads: 1 });
  const feeds = { x: new ort.Tensor("float32", new Float32Array([1, 2, 3, 4]), [4]) };
  for (let i = 0; i < 500; ++i) await session.run(feeds);
  const perRun = [];
  for (let b = 0; b < Number(batches); ++b) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < Number(runs); ++i) await session.run(feeds);
    perRun.push(Number(process.hrtime.bigint() - t0) / 1e3 / Number(runs));
  }
  perRun.sort((a, b) => a - b);
  const lib = fs.readFileSync("/proc/self/maps", "utf8").split("\n").find((l) => l.includes("libonnxruntime.so"));
  console.log(JSON.stringify({ library: lib ? lib.split(/\s+/).pop() : null, median_us: perRun[perRun.length >> 1],
                               p10_us: perRun[Math.floor(perRun.length / 10)] }));
})();
