// llama_cpp_reference.mjs PACKAGE_DIR SPEC.json: runs a GGUF file in llama.cpp itself (node-llama-cpp's
// prebuilt CPU build, PACKAGE_DIR its installed package) and prints what it made of it as JSON. SPEC:
// {"model": "FILE.gguf", "texts": [...], "ids": [...]}. Output: {"tokens": [[ids of each text, read with its
// special tokens, without a start token]], "next": [{id: probability} after ids[0..L) for L = 1 .. len(ids)]}:
// llama.cpp's next-token distribution (its softmax of the logits, no sampling applied) after each prefix,
// computed in float32 (its key/value cache too).
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const { getLlama } = await import(pathToFileURL(`${process.argv[2]}/dist/index.js`).href);
const spec = JSON.parse(readFileSync(process.argv[3], "utf8"));
const llama = await getLlama({ gpu: false, build: "never", logLevel: "error" });
const model = await llama.loadModel({ modelPath: spec.model });
const tokens = spec.texts.map((text) => Array.from(model.tokenize(text, true)));
// The key/value cache in float32 (llama.cpp's default is float16) and attention without the flash-attention
// kernel (which computes in float16 whatever the cache's type), so that an F32 file computes in float32.
const context = await model.createContext({
  contextSize: 256,
  batchSize: 256,
  flashAttention: false,
  experimentalKvCacheKeyType: "F32",
  experimentalKvCacheValueType: "F32",
});
const sequence = context.getSequence();
const next = [];
for (let length = 1; length <= spec.ids.length; ++length) {
  await sequence.clearHistory();
  for await (const out of sequence.evaluateWithMetadata(spec.ids.slice(0, length), { probabilities: true }, { temperature: 0 })) {
    next.push(Object.fromEntries(out.probabilities));
    break;
  }
}
process.stdout.write(JSON.stringify({ tokens, next }) + "\n");
await context.dispose();
await model.dispose();
