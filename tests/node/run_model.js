// onnxruntime-node 1.30, unmodified, on onyx's libonnxruntime.so.1 (the ctest test node_binding):
// checks that the process mapped onyx's library and not the one in the npm package, then runs
// models/stripes.onnx through the binding's own API (sessions from a file and from bytes,
// names, a batch of two images whose classes are known, fetches by name, an error for a bad
// feed).
//
//     node tests/node/run_model.js ONYX_LIBRARY_DIR STRIPES_MODEL
// (run with ONYX_LIBRARY_DIR first on LD_LIBRARY_PATH; exits 0 when every check passes)
const fs = require("fs");
const path = require("path");

const [libDir, modelPath] = process.argv.slice(2);
let failures = 0;
function check(cond, what) {
  if (!cond) {
    console.error("check failed:", what);
    failures += 1;
  }
}

let ort;
try {
  ort = require(path.join(__dirname, "node_modules", "onnxruntime-node"));
} catch (e) {
  console.error("onnxruntime-node is not installed in tests/node: run scripts/setup.sh (" + e.message + ")");
  process.exit(1);
}

function stripes(horizontal) {
  const image = new Float32Array(64);
  for (let r = 0; r < 8; ++r)
    for (let c = 0; c < 8; ++c) image[r * 8 + c] = Math.floor((horizontal ? r : c) / 2) % 2;
  return image;
}

async function classify(session) {
  const images = new Float32Array(128);
  images.set(stripes(true), 0);    // horizontal stripes: class 1
  images.set(stripes(false), 64);  // vertical stripes: class 0
  const out = await session.run({ image: new ort.Tensor("float32", images, [2, 1, 8, 8]) }, ["probabilities"]);
  const p = out.probabilities;
  check(p.type === "float32" && p.dims.length === 2 && p.dims[0] === 2 && p.dims[1] === 3, "output dims " + p.dims);
  const argmax = (b) => [0, 1, 2].reduce((best, k) => (p.data[b * 3 + k] > p.data[b * 3 + best] ? k : best), 0);
  check(argmax(0) === 1 && argmax(1) === 0, "classes " + argmax(0) + ", " + argmax(1));
  for (let b = 0; b < 2; ++b) {
    const sum = p.data[b * 3] + p.data[b * 3 + 1] + p.data[b * 3 + 2];
    check(Math.abs(sum - 1) < 1e-5, "probabilities of item " + b + " sum to " + sum);
  }
}

(async () => {
  const session = await ort.InferenceSession.create(modelPath, { intraOpNumThreads: 1, graphOptimizationLevel: "all" });
  const maps = fs.readFileSync("/proc/self/maps", "utf8");
  const loaded = maps.split("\n").filter((l) => l.includes("libonnxruntime.so")).map((l) => l.split(/\s+/).pop());
  const ours = fs.realpathSync(path.join(libDir, "libonnxruntime.so.1"));
  check(loaded.length > 0 && loaded.every((p) => fs.realpathSync(p) === ours),
        "the process maps onyx's library only (" + [...new Set(loaded)].join(", ") + ")");
  check(JSON.stringify(session.inputNames) === '["image"]', "input names " + session.inputNames);
  check(JSON.stringify(session.outputNames) === '["probabilities"]', "output names " + session.outputNames);
  await classify(session);
  const fromBytes = await ort.InferenceSession.create(fs.readFileSync(modelPath));
  await classify(fromBytes);
  let refused = null;
  try {
    await session.run({ image: new ort.Tensor("float32", new Float32Array(10), [10]) });
  } catch (e) {
    refused = e;
  }
  check(refused !== null && /image/.test(String(refused)), "a feed of the wrong rank is refused naming it: " + refused);
  await session.release();
  await fromBytes.release();
  if (failures) {
    console.error(failures + " checks failed");
    process.exit(1);
  }
  console.log("onnxruntime-node " + require(path.join(__dirname, "node_modules", "onnxruntime-node", "package.json")).version +
              " on onyx's library: all checks passed");
})().catch((e) => {
  console.error("failed:", e);
  process.exit(1);
});
