// Saving and loading Heptapod model files: config + named F32 parameters + format version, in the
// safetensors layout described in docs/model-format.md.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>

#include "heptapod/io/safetensors.h"
#include "heptapod/kernels/gguf_blocks.h"
#include "heptapod/model/transformer.h"

namespace heptapod {

inline constexpr const char* kModelFormat = "heptapod-model";
// Version 1: float32 parameters. Version 2 adds low-precision weight matrices (heptapod quantize), named by
// the metadata "weights"; float files are still written as version 1. "weights" is "int8" (I8 tensors, each
// with per-row scales "<name>_scale"), "bfloat16" (BF16 tensors), "int4" or "ggml": a matrix in ggml blocks
// is a U8 tensor of shape (out, ggml_row_bytes(type, in)) whose type the metadata "ggml_types" names (a JSON
// object, tensor name -> "Q4_0", "Q4_K", ...); int4 files (heptapod quantize --to int4) hold Q4_0 blocks and
// the matrices kept in higher precision, ggml files what a GGUF file held (heptapod convert model.gguf).
// Other matrices of a version 2 file may stay F32.
inline constexpr int kModelFormatVersion = 1;
inline constexpr int kLowPrecisionFormatVersion = 2;
inline constexpr const char* kGgmlTypesKey = "ggml_types";

// Tensors stored beside the parameters; their names must start with "extra/" (vocabularies, optimizer state).
struct ExtraTensor {
  std::string name;
  DType dtype = DType::U8;
  std::vector<std::int64_t> shape;
  const void* data = nullptr;
};

// Writes the model atomically. extra_metadata keys must not clash with format, format_version or config.
void save_model(const std::string& path, const Transformer<float>& model,
                const std::map<std::string, std::string>& extra_metadata = {},
                const std::vector<ExtraTensor>& extra_tensors = {});

// Reads, validates and builds the model; any problem is an Error naming the file and the field or tensor.
// Float files only: a low-precision file translates and scores (load_inference_model) but is not trained,
// averaged or converted.
std::unique_ptr<Transformer<float>> load_model(const std::string& path);
std::unique_ptr<Transformer<float>> load_model(const SafetensorsFile& file);

// The type a file's weight matrices are stored in: float32, or what heptapod quantize wrote.
ComputeType stored_compute_type(const SafetensorsFile& file);
// The block types of a file's ggml tensors (metadata "ggml_types": tensor name -> type), each one the block
// products compute (an Error names the tensor otherwise); empty for a file without them.
std::map<std::string, kernels::GgmlType> ggml_types(const SafetensorsFile& file);
// The precision a file computes in unless told otherwise: its stored type, and float_output when a
// low-precision file keeps its output projection in float32.
InferencePrecision stored_precision(const SafetensorsFile& file);

// Reads a model for inference and packs it for `precision` (Transformer::pack_for_inference): a float file,
// or a low-precision one whose matrices pack from their stored form (converted when `precision` asks for
// another type). Validated as load_model validates, plus each low-precision tensor and its scales.
std::unique_ptr<Transformer<float>> load_inference_model(const SafetensorsFile& file,
                                                         const InferencePrecision& precision);

// Fills the parameters of `model` that `which` selects from `file` (float32 or low precision; each must be
// there, with the right shape and dtype): float32 tensors are copied into the parameters; the matrices the file
// holds in low precision (int8 with scales, bfloat16, ggml blocks) are returned, pointing into the file, their
// parameters left unfilled (untouched pages cost no memory): what pack_for_inference or hold_frozen_weights
// read. Tensors the selection leaves out are not checked.
StoredMatrices load_stored_parameters(const SafetensorsFile& file, Transformer<float>& model,
                                      const std::function<bool(const ParamSpec&)>& which);
// Writes each of `stored`'s matrices into its float32 parameter of `model`: its rows dequantized, as its
// products read them.
void dequantize_stored(Transformer<float>& model, const StoredMatrices& stored);
// Gives back the file pages of `stored` (and their scales) once they were copied elsewhere.
void release_stored_pages(const SafetensorsFile& file, const StoredMatrices& stored);

// Writes the float model in `file` to `path` (atomically) with its weight matrices in `precision.type`:
// int8 with per-row scales (tensor "<name>_scale", F32 (out)) or bfloat16; the output projection and the
// embeddings tied to it stay float32 with precision.float_output. Everything else (biases, norms, untied
// embedding tables, vocabularies, metadata) is copied as it is.
void save_low_precision_model(const SafetensorsFile& file, const InferencePrecision& precision,
                              const std::string& path);

// Writes the model file `file` again to `path` (atomically), its tensors as they are and `metadata` as its
// whole metadata (format, version and config included): how a file's chat template is set or replaced.
void rewrite_model_metadata(const SafetensorsFile& file, const std::map<std::string, std::string>& metadata,
                            const std::string& path);
// The config a model file carries (validates format and version first).
ModelConfig read_model_config(const SafetensorsFile& file);

// Copies tensors named prefix + parameter name into params, checking that exactly the expected set is
// present (extra tensors outside `prefix` and under "extra/" are ignored), with F32 dtype, the right shapes
// and finite values.
template <typename T>
void load_parameters(const SafetensorsFile& file, ParameterStore<T>& params, const std::string& prefix = "");

// Copies the parameters that `which` selects from a model file whose other tensors may differ: each copied
// tensor must be there, F32, with the right shape and finite values.
template <typename T>
void load_selected_parameters(const SafetensorsFile& file, ParameterStore<T>& params,
                              const std::function<bool(const ParamSpec&)>& which);

// Copies the parameters that are not part of an output layer or head (ParamPart::Output), nor LoRA adapters,
// from a model file whose other parameters may differ: an encoder fine-tuned with another head than the one
// it was trained with; and the [CLS] pooler when both have one (load_selected_parameters' checks).
template <typename T>
void load_body_parameters(const SafetensorsFile& file, ParameterStore<T>& params);
// Whether load_body_parameters copies `spec` from `file`.
bool is_body_parameter(const SafetensorsFile& file, const ParamSpec& spec);

}  // namespace heptapod
