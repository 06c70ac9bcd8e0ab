// The GGUF reader (io/gguf_file.h) on files written by our independent writer (tools/gguf_writer.py, run at
// test time): every value type and array read back with its type, the tensor table (dims, types, offsets,
// sizes) and data equal to what was written; every damaged file (bytes of a valid one edited here) ends in an
// Error that names the problem. RealGguf compares the reader with @huggingface/gguf's parse of the same files
// (tests/gguf/run.sh), among them the files Heptapod's GGUF export writes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>

#include "heptapod/core/error.h"
#include "heptapod/io/gguf_file.h"
#include "heptapod/kernels/half.h"
#include "real_tokenizer_data.h"
#include "test_process.h"

namespace heptapod {
namespace {

using test::TempDir;

// Runs tools/gguf_writer.py example with `options`; returns the file's path in `dir`.
std::string write_example(const TempDir& dir, const std::string& options = "") {
  const std::string out = dir.file("example.gguf");
  const std::string writer = std::string(HEPTAPOD_FIXTURES) + "/../../tools/gguf_writer.py";
  const std::string command = "/usr/bin/python3 " + test::quoted(writer) + " example " + test::quoted(out) + " " + options;
  EXPECT_EQ(std::system(command.c_str()), 0) << command;
  return out;
}

std::uint16_t load_u16(const unsigned char* p) { return static_cast<std::uint16_t>(p[0] | (p[1] << 8)); }

float bf16_value(std::uint16_t bits) {
  const std::uint32_t wide = static_cast<std::uint32_t>(bits) << 16;
  float f;
  std::memcpy(&f, &wide, 4);
  return f;
}

TEST(GgufFile, ReadsEveryValueTypeWithItsType) {
  TempDir dir;
  const GgufFile f = GgufFile::read(write_example(dir));
  EXPECT_EQ(f.version(), 3u);
  EXPECT_EQ(f.alignment(), 32u);
  EXPECT_EQ(f.keys().size(), 29u);
  EXPECT_EQ(f.keys().front(), "general.architecture");
  EXPECT_EQ(f.string("general.architecture"), "llama");
  EXPECT_EQ(f.string("general.name"), "h\xc3\xa9ptapod \xe2\x9c\x93");
  EXPECT_EQ(f.u8("test.u8"), 200);
  EXPECT_EQ(f.i8("test.i8"), -100);
  EXPECT_EQ(f.u16("test.u16"), 60000);
  EXPECT_EQ(f.i16("test.i16"), -30000);
  EXPECT_EQ(f.u32("test.u32"), 4000000000u);
  EXPECT_EQ(f.i32("test.i32"), -2000000000);
  EXPECT_EQ(f.f32("test.f32"), 0.1f);
  EXPECT_TRUE(f.boolean("test.bool"));
  EXPECT_EQ(f.u64("test.u64"), UINT64_MAX);
  EXPECT_EQ(f.i64("test.i64"), -(std::int64_t{1} << 62) - 7);
  EXPECT_EQ(f.f64("test.f64"), 3.141592653589793);
  EXPECT_EQ(f.string("test.empty"), "");
  EXPECT_EQ(f.at("test.i16").type, GgufType::I16);

  EXPECT_EQ(f.strings("tokenizer.ggml.tokens"), (std::vector<std::string>{"<s>", "hello", "w\xc3\xb6rld", ""}));
  EXPECT_EQ(f.f32s("tokenizer.ggml.scores"), (std::vector<float>{0.0f, -1.5f, 2.25f}));
  EXPECT_EQ(f.i32s("tokenizer.ggml.token_type"), (std::vector<std::int32_t>{1, 2, 3, 6}));
  EXPECT_EQ(f.u32s("array.u32"), (std::vector<std::uint32_t>{0, UINT32_MAX}));
  EXPECT_EQ(f.i32s("array.i32"), (std::vector<std::int32_t>{INT32_MIN, INT32_MAX}));
  EXPECT_EQ(f.u64s("array.u64"), (std::vector<std::uint64_t>{0, UINT64_MAX}));
  EXPECT_EQ(f.i64s("array.i64"), (std::vector<std::int64_t>{INT64_MIN, INT64_MAX}));
  EXPECT_EQ(f.u32s("array.empty"), std::vector<std::uint32_t>{});
  const auto item = [&](const std::string& key, std::size_t i) { return f.at(key).items.at(i); };
  EXPECT_EQ(f.at("array.u8").item_type, GgufType::U8);
  EXPECT_EQ(item("array.u8", 1), GgufScalar(std::uint64_t{255}));
  EXPECT_EQ(f.at("array.i8").item_type, GgufType::I8);
  EXPECT_EQ(item("array.i8", 0), GgufScalar(std::int64_t{-128}));
  EXPECT_EQ(f.at("array.u16").item_type, GgufType::U16);
  EXPECT_EQ(item("array.u16", 1), GgufScalar(std::uint64_t{65535}));
  EXPECT_EQ(f.at("array.i16").item_type, GgufType::I16);
  EXPECT_EQ(item("array.i16", 0), GgufScalar(std::int64_t{-32768}));
  EXPECT_EQ(f.at("array.f32").item_type, GgufType::F32);
  EXPECT_EQ(item("array.f32", 2), GgufScalar(double{1e-3f}));
  EXPECT_EQ(f.at("array.f64").item_type, GgufType::F64);
  EXPECT_EQ(item("array.f64", 1), GgufScalar(-1e300));
  EXPECT_EQ(f.at("array.bool").item_type, GgufType::Bool);
  EXPECT_EQ(f.at("array.bool").items, (std::vector<GgufScalar>{true, false, true}));
}

TEST(GgufFile, TypedGettersNameTheKeyAndBothTypes) {
  TempDir dir;
  const GgufFile f = GgufFile::read(write_example(dir));
  try {
    f.u32("test.u8");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_HAS_SUBSTR(e.what(), "example.gguf: metadata \"test.u8\" is u8, expected u32");
  }
  try {
    f.strings("tokenizer.ggml.scores");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_HAS_SUBSTR(e.what(), "metadata \"tokenizer.ggml.scores\" is array of f32, expected array of string");
  }
  try {
    f.string("llama.block_count");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_HAS_SUBSTR(e.what(), "metadata has no \"llama.block_count\"");
  }
  EXPECT_THROW(f.f32s("test.f32"), Error);
  EXPECT_EQ(f.optional_u32("llama.block_count"), std::nullopt);
  EXPECT_EQ(f.optional_u32("test.u32"), 4000000000u);
  EXPECT_EQ(f.optional_string("general.architecture"), "llama");
  EXPECT_EQ(f.optional_boolean("test.bool"), true);
  EXPECT_THROW(f.optional_f32("test.f64"), Error);
  EXPECT_THROW(f.tensor("missing.weight"), Error);
  EXPECT_EQ(f.find_tensor("missing.weight"), nullptr);
}

// The example's tensors: F32 (3, 5), F16 (2, 7), BF16 (2, 3, 4), Q8_0 (2, 64), at these offsets.
void expect_example_tensors(const GgufFile& f, const std::vector<std::uint64_t>& offsets) {
  ASSERT_EQ(f.tensors().size(), 4u);
  const std::vector<std::string> names = {"token_embd.weight", "blk.0.attn_q.weight", "blk.0.attn_k.weight",
                                          "output.weight"};
  const std::vector<std::vector<std::uint64_t>> dims = {{5, 3}, {7, 2}, {4, 3, 2}, {64, 2}};
  const std::vector<std::vector<std::int64_t>> shapes = {{3, 5}, {2, 7}, {2, 3, 4}, {2, 64}};
  using kernels::GgmlType;
  const std::vector<GgmlType> types = {GgmlType::F32, GgmlType::F16, GgmlType::BF16, GgmlType::Q8_0};
  const std::vector<std::string> type_names = {"F32", "F16", "BF16", "Q8_0"};
  const std::vector<std::uint64_t> bytes = {60, 28, 48, 136};  // Q8_0: 4 blocks of 34 bytes
  for (std::size_t i = 0; i < 4; ++i) {
    const GgufTensor& t = f.tensors()[i];
    EXPECT_EQ(t.name, names[i]);
    EXPECT_EQ(&f.tensor(names[i]), &t);
    EXPECT_EQ(t.dims, dims[i]) << t.name;
    EXPECT_EQ(t.shape, shapes[i]) << t.name;
    EXPECT_EQ(t.type, types[i]) << t.name;
    EXPECT_EQ(t.type_name, type_names[i]) << t.name;
    EXPECT_EQ(t.offset, offsets[i]) << t.name;
    EXPECT_EQ(t.bytes, bytes[i]) << t.name;
  }
  EXPECT_EQ(f.data_start() % f.alignment(), 0u);
  const unsigned char* embd = f.data(f.tensors()[0]);
  for (int i = 0; i < 15; ++i) {
    float v;
    std::memcpy(&v, embd + 4 * i, 4);
    EXPECT_EQ(v, i * 0.5f - 3) << i;
  }
  const unsigned char* q = f.data(f.tensors()[1]);
  for (int i = 0; i < 14; ++i) EXPECT_EQ(kernels::from_half_scalar(load_u16(q + 2 * i)), (i - 3) * 0.25f) << i;
  const unsigned char* k = f.data(f.tensors()[2]);
  for (int i = 0; i < 24; ++i) EXPECT_EQ(bf16_value(load_u16(k + 2 * i)), (i - 12) * 0.125f) << i;
  const unsigned char* out = f.data(f.tensors()[3]);  // (2, 64) in 4 blocks: f16 d, i8 q[32]
  for (int block = 0; block < 4; ++block) {
    const unsigned char* b = out + 34 * block;
    const float d = kernels::from_half_scalar(load_u16(b));
    float amax = 0;
    std::vector<float> x(32);  // (32,) the block's values as written
    for (int j = 0; j < 32; ++j) {
      const int i = 32 * block + j;
      x[j] = std::sin(i * 0.37f) * static_cast<float>(1 + block);
      amax = std::max(amax, std::fabs(x[j]));
    }
    EXPECT_NEAR(d, amax / 127, amax / 127 * 1e-3) << "block " << block;
    // q was rounded against amax/127 before d was rounded to f16: off by half a step plus |q| <= 127 times
    // d's f16 rounding (2^-11 relative).
    for (int j = 0; j < 32; ++j)
      EXPECT_NEAR(d * static_cast<std::int8_t>(b[2 + j]), x[j], d * (0.5f + 127.0f / 2048 + 0.01f))
          << "block " << block << " item " << j;
  }
}

TEST(GgufFile, ReadsTensorTableAndData) {
  TempDir dir;
  expect_example_tensors(GgufFile::read(write_example(dir)), {0, 64, 96, 160});
}

TEST(GgufFile, ReadsVersion2WithItsAlignment) {
  TempDir dir;
  const GgufFile f = GgufFile::read(write_example(dir, "--version 2 --alignment 64"));
  EXPECT_EQ(f.version(), 2u);
  EXPECT_EQ(f.alignment(), 64u);
  EXPECT_EQ(f.u32("general.alignment"), 64u);
  expect_example_tensors(f, {0, 64, 128, 192});
}

// Byte editing of a valid file.
std::string packed(const std::string& text) {
  std::string out(8, '\0');
  const std::uint64_t n = text.size();
  std::memcpy(out.data(), &n, 8);
  return out + text;
}
// The offset just past the (length-prefixed) string `text` in `bytes`.
std::size_t after(const std::string& bytes, const std::string& text) {
  const std::size_t at = bytes.find(packed(text));
  EXPECT_NE(at, std::string::npos) << text;
  return at + 8 + text.size();
}
template <typename T>
void put(std::string& bytes, std::size_t at, T value) {
  std::memcpy(bytes.data() + at, &value, sizeof(T));
}
template <typename T>
T get(const std::string& bytes, std::size_t at) {
  T value;
  std::memcpy(&value, bytes.data() + at, sizeof(T));
  return value;
}
// Offsets of a tensor info's fields, for a tensor of `n_dims` dims.
std::size_t dims_at(const std::string& bytes, const std::string& name) { return after(bytes, name) + 4; }
std::size_t type_at(const std::string& bytes, const std::string& name, int n_dims) {
  return dims_at(bytes, name) + 8 * n_dims;
}
std::size_t offset_at(const std::string& bytes, const std::string& name, int n_dims) {
  return type_at(bytes, name, n_dims) + 4;
}

struct BadCase {
  const char* what;
  std::function<void(std::string&)> edit;
  const char* message;
};

TEST(GgufFile, EveryDamagedFileGivesItsError) {
  TempDir dir;
  const std::string path = write_example(dir, "--alignment 64");
  const std::string valid = test::slurp(path);
  const std::vector<BadCase> cases = {
      {"magic", [](std::string& b) { b[0] = 'X'; }, "not a GGUF file"},
      {"version 1", [](std::string& b) { put<std::uint32_t>(b, 4, 1); }, "GGUF version 1 (32-bit counts) is not supported"},
      {"big-endian", [](std::string& b) { put<std::uint32_t>(b, 4, 0x03000000); }, "big-endian"},
      {"version 4", [](std::string& b) { put<std::uint32_t>(b, 4, 4); }, "unsupported GGUF version 4"},
      {"tensor count", [](std::string& b) { put<std::uint64_t>(b, 8, (1u << 20) + 1); }, "tensor count 1048577"},
      {"kv count", [](std::string& b) { put<std::uint64_t>(b, 16, UINT64_MAX); }, "key/value count 18446744073709551615"},
      {"no room for the keys", [](std::string& b) { put<std::uint64_t>(b, 16, 1u << 20); },
       "header claims 1048576 key/value pairs and 4 tensors but only"},
      {"key length", [](std::string& b) { put<std::uint64_t>(b, 24, 1000000000); },
       "metadata key 0 at byte 24 claims 1000000000 bytes"},
      {"key length overflowing", [](std::string& b) { put<std::uint64_t>(b, 24, UINT64_MAX - 3); },
       "claims 18446744073709551612 bytes"},
      {"string value length",
       [](std::string& b) { put<std::uint64_t>(b, after(b, "general.architecture") + 4, UINT64_MAX); },
       "metadata \"general.architecture\" at byte"},
      {"array length", [](std::string& b) { put<std::uint64_t>(b, after(b, "tokenizer.ggml.tokens") + 8, 1ull << 61); },
       "metadata \"tokenizer.ggml.tokens\" at byte"},
      {"array length overflowing", [](std::string& b) { put<std::uint64_t>(b, after(b, "array.u64") + 8, 1ull << 62); },
       "claims 4611686018427387904 items of u64"},
      {"value type", [](std::string& b) { put<std::uint32_t>(b, after(b, "test.u16"), 13); },
       "metadata \"test.u16\" has unknown value type 13"},
      {"array of arrays", [](std::string& b) { put<std::uint32_t>(b, after(b, "array.u8") + 4, 9); },
       "metadata \"array.u8\" at byte"},
      {"bool", [](std::string& b) { b[after(b, "test.bool") + 4] = 2; }, "bool holding 2"},
      {"duplicate key", [](std::string& b) { b.replace(after(b, "test.i8") - 7, 7, "test.u8"); },
       "duplicate metadata key \"test.u8\""},
      {"alignment not a power of two", [](std::string& b) { put<std::uint32_t>(b, after(b, "general.alignment") + 4, 48); },
       "\"general.alignment\" is 48, not a power of two"},
      {"alignment zero", [](std::string& b) { put<std::uint32_t>(b, after(b, "general.alignment") + 4, 0); },
       "not a power of two"},
      {"alignment type", [](std::string& b) { put<std::uint32_t>(b, after(b, "general.alignment"), 5); },
       "\"general.alignment\" is i32, expected u32"},
      {"duplicate tensor", [](std::string& b) { b.replace(after(b, "blk.0.attn_k.weight") - 19, 19, "blk.0.attn_q.weight"); },
       "duplicate tensor name \"blk.0.attn_q.weight\""},
      {"tensor type", [](std::string& b) { put<std::uint32_t>(b, type_at(b, "output.weight", 2), 99); },
       "tensor \"output.weight\" has unknown ggml type 99"},
      {"n_dims", [](std::string& b) { put<std::uint32_t>(b, after(b, "output.weight"), 5); },
       "tensor \"output.weight\" has 5 dims"},
      {"block size", [](std::string& b) { put<std::uint64_t>(b, dims_at(b, "output.weight"), 48); },
       "tensor \"output.weight\" of type Q8_0 has an innermost dim of 48, not a multiple of its block size 32"},
      {"dims overflowing",
       [](std::string& b) {
         put<std::uint64_t>(b, dims_at(b, "token_embd.weight"), 1ull << 40);
         put<std::uint64_t>(b, dims_at(b, "token_embd.weight") + 8, 1ull << 40);
       },
       "tensor \"token_embd.weight\" has implausibly large dims"},
      {"tensor past the end", [](std::string& b) { put<std::uint64_t>(b, offset_at(b, "output.weight", 2), 64 * 100); },
       "tensor \"output.weight\" data [6400, +136) lies past the end"},
      {"offset wrapping", [](std::string& b) { put<std::uint64_t>(b, offset_at(b, "output.weight", 2), UINT64_MAX - 63); },
       "lies past the end"},
      {"misaligned", [](std::string& b) { put<std::uint64_t>(b, offset_at(b, "blk.0.attn_q.weight", 2), 96); },
       "tensor \"blk.0.attn_q.weight\" data offset 96 is not a multiple of the alignment 64"},
      {"overlapping", [](std::string& b) { put<std::uint64_t>(b, offset_at(b, "blk.0.attn_k.weight", 3), 64); },
       "overlaps tensor"},
  };
  for (const auto& c : cases) {
    std::string bytes = valid;
    c.edit(bytes);
    const std::string bad = dir.write(std::string("bad_") + std::to_string(&c - cases.data()) + ".gguf", bytes);
    try {
      GgufFile::read(bad);
      ADD_FAILURE() << c.what << ": no error";
    } catch (const Error& e) {
      EXPECT_HAS_SUBSTR(e.what(), bad + ": ") << c.what;
      EXPECT_HAS_SUBSTR(e.what(), c.message) << c.what;
    }
  }
}

TEST(GgufFile, EveryTruncationGivesAnError) {
  TempDir dir;
  const std::string valid = test::slurp(write_example(dir));
  const GgufFile whole = GgufFile::parse(valid, "whole");
  const GgufTensor& last = whole.tensors().back();
  const std::size_t end = whole.data_start() + last.offset + last.bytes;  // what follows is padding
  for (std::size_t n = 0; n < end; ++n) EXPECT_THROW(GgufFile::parse(valid.substr(0, n), "cut"), Error) << n;
  EXPECT_NO_THROW(GgufFile::parse(valid.substr(0, end), "cut"));
  const std::size_t item_type_at = after(valid, "array.f64") + 4;  // cut 2 bytes into the array's item type
  const std::string cut = dir.write("cut.gguf", valid.substr(0, item_type_at + 2));
  try {
    GgufFile::read(cut);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_HAS_SUBSTR(e.what(), cut + ": truncated at byte " + std::to_string(item_type_at) +
                                    " reading the item type of metadata \"array.f64\" (4 bytes, 2 left)");
  }
  EXPECT_THROW(GgufFile::read(dir.file("missing.gguf")), Error);
}

// What @huggingface/gguf read (tests/gguf/gguf_reference.js) equals what Heptapod reads.
void expect_scalar_equal(GgufType type, const GgufScalar& got, const nlohmann::json& want, const std::string& what) {
  switch (type) {
    case GgufType::U64: EXPECT_EQ(want.get<std::string>(), std::to_string(std::get<std::uint64_t>(got))) << what; break;
    case GgufType::I64: EXPECT_EQ(want.get<std::string>(), std::to_string(std::get<std::int64_t>(got))) << what; break;
    case GgufType::U8: case GgufType::U16: case GgufType::U32:
      EXPECT_EQ(want.get<std::uint64_t>(), std::get<std::uint64_t>(got)) << what;
      break;
    case GgufType::I8: case GgufType::I16: case GgufType::I32:
      EXPECT_EQ(want.get<std::int64_t>(), std::get<std::int64_t>(got)) << what;
      break;
    case GgufType::F32: case GgufType::F64: EXPECT_EQ(want.get<double>(), std::get<double>(got)) << what; break;
    case GgufType::Bool: EXPECT_EQ(want.get<bool>(), std::get<bool>(got)) << what; break;
    case GgufType::String: EXPECT_EQ(want.get<std::string>(), std::get<std::string>(got)) << what; break;
    case GgufType::Array: ADD_FAILURE() << what << ": nested array"; break;
  }
}

TEST(RealGguf, MatchesHuggingFaceParser) {
  const std::string data = test::env("HEPTAPOD_GGUF_DATA");
  if (data.empty()) GTEST_SKIP() << "HEPTAPOD_GGUF_DATA not set (tests/gguf/run.sh sets it)";
  int files = 0, exported = 0;
  for (const auto& entry : std::filesystem::directory_iterator(data)) {
    if (entry.path().extension() != ".gguf") continue;
    exported += entry.path().filename().string().rfind("exported_", 0) == 0 ? 1 : 0;
    std::filesystem::path reference = entry.path();
    reference.replace_extension(".json");
    ASSERT_TRUE(std::filesystem::exists(reference)) << reference;
    const auto want = nlohmann::json::parse(test::slurp(reference.string()));
    const GgufFile f = GgufFile::read(entry.path().string());
    const std::string name = entry.path().filename().string();
    ++files;
    EXPECT_EQ(want["version"].get<std::uint32_t>(), f.version()) << name;
    EXPECT_EQ(want["kv_count"].get<std::string>(), std::to_string(f.keys().size())) << name;
    EXPECT_EQ(want["tensor_count"].get<std::string>(), std::to_string(f.tensors().size())) << name;
    EXPECT_EQ(want["tensor_data_offset"].get<std::string>(), std::to_string(f.data_start())) << name;
    ASSERT_EQ(want["metadata"].size(), f.keys().size()) << name;
    for (const auto& key : f.keys()) {
      const std::string what = name + " " + key;
      ASSERT_TRUE(want["metadata"].contains(key)) << what;
      const auto& w = want["metadata"][key];
      const GgufValue& v = f.at(key);
      EXPECT_EQ(w["type"].get<std::uint32_t>(), static_cast<std::uint32_t>(v.type)) << what;
      if (!v.is_array()) {
        expect_scalar_equal(v.type, v.scalar, w["value"], what);
        continue;
      }
      EXPECT_EQ(w["item_type"].get<std::uint32_t>(), static_cast<std::uint32_t>(v.item_type)) << what;
      ASSERT_EQ(w["value"].size(), v.items.size()) << what;
      for (std::size_t i = 0; i < v.items.size(); ++i)
        expect_scalar_equal(v.item_type, v.items[i], w["value"][i], what + " item " + std::to_string(i));
    }
    ASSERT_EQ(want["tensors"].size(), f.tensors().size()) << name;
    for (std::size_t i = 0; i < f.tensors().size(); ++i) {
      const auto& w = want["tensors"][i];
      const GgufTensor& t = f.tensors()[i];
      EXPECT_EQ(w["name"].get<std::string>(), t.name) << name;
      std::vector<std::string> dims;
      for (auto d : t.dims) dims.push_back(std::to_string(d));
      EXPECT_EQ(w["dims"].get<std::vector<std::string>>(), dims) << name << " " << t.name;
      EXPECT_EQ(w["type"].get<std::uint32_t>(), static_cast<std::uint32_t>(t.type)) << name << " " << t.name;
      EXPECT_EQ(w["offset"].get<std::string>(), std::to_string(t.offset)) << name << " " << t.name;
    }
  }
  EXPECT_GE(files, 2) << "no reference files in " << data;
  EXPECT_EQ(exported, 16) << "Heptapod's GGUF export (4 fixtures, 4 weight types) in " << data;
}

}  // namespace
}  // namespace heptapod
