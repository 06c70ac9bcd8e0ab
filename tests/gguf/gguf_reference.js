// gguf_reference.js PACKAGE_DIR FILE.gguf: parses a GGUF file with @huggingface/gguf (an independent GGUF
// parser; PACKAGE_DIR is its unpacked npm package, @huggingface/tasks beside it) and prints what it read as
// JSON: {version, tensor_count, kv_count, tensor_data_offset, metadata: {key: {type, item_type?, value}},
// tensors: [{name, dims, type, offset}]}. 64-bit integers are written as decimal strings, dims innermost first.
"use strict";
const { gguf } = require(process.argv[2]);

const plain = (v) => (typeof v === "bigint" ? v.toString() : Array.isArray(v) ? v.map(plain) : v);

(async () => {
  const parsed = await gguf(process.argv[3], { allowLocalFile: true, typedMetadata: true });
  const metadata = {};
  for (const [key, entry] of Object.entries(parsed.typedMetadata)) {
    if (key === "version" || key === "tensor_count" || key === "kv_count") continue;
    metadata[key] = { type: entry.type, value: plain(entry.value) };
    if (entry.subType !== undefined) metadata[key].item_type = entry.subType;
  }
  const out = {
    version: parsed.metadata.version,
    tensor_count: plain(parsed.metadata.tensor_count),
    kv_count: plain(parsed.metadata.kv_count),
    tensor_data_offset: plain(parsed.tensorDataOffset),
    metadata,
    tensors: parsed.tensorInfos.map((t) => ({ name: t.name, dims: plain(t.shape), type: t.dtype, offset: plain(t.offset) })),
  };
  process.stdout.write(JSON.stringify(out, null, 1) + "\n");
})().catch((e) => {
  console.error(`error: ${process.argv[3]}: ${e.message}`);
  process.exit(1);
});
