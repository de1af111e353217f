// ONNX Runtime (CPU) timing through onnxruntime-node, for tests/bench/bench.py when the
// Python onnxruntime is not importable (as bench_ort.py: MODEL INPUT.bin DIMS REPEAT [THREADS] ->
// one JSON line). onnxruntime-node is found through NODE_PATH (its node_modules folder).
const fs = require('fs');
const ort = require('onnxruntime-node');

async function main() {
  const [model, data, dims, repeatText, threadsText] = process.argv.slice(2);
  const threads = parseInt(threadsText || '0', 10);
  const repeat = parseInt(repeatText, 10);
  const buf = fs.readFileSync(data);
  const x = new Float32Array(buf.buffer, buf.byteOffset, buf.length / 4);
  const shape = dims.split(',').map(Number);
  const s = await ort.InferenceSession.create(model, {
    executionProviders: ['cpu'],
    ...(threads > 0 ? {intraOpNumThreads: threads} : {}),
  });
  const feed = {[s.inputNames[0]]: new ort.Tensor('float32', x, shape)};
  await s.run(feed); // warm-up
  const ms = [];
  for (let i = 0; i < repeat; i++) {
    const t0 = process.hrtime.bigint();
    await s.run(feed);
    ms.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  ms.sort((a, b) => a - b);
  console.log(JSON.stringify({
    median_ms: ms[Math.floor(ms.length / 2)],
    p99_ms: ms[Math.min(ms.length - 1, Math.floor(0.99 * ms.length))],
  }));
}

main().catch((e) => {
  console.error(String(e));
  process.exit(1);
});
