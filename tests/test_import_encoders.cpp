// Converted RoBERTa, XLM-R, DistilBERT and sentence-transformers checkpoints against the independent float64
// references of tools/encoder_reference.py (fixtures by tools/make_encoder_fixtures.py: random weights under
// Hugging Face's names and config keys, the tokenizer files each family ships): `heptapod convert --from
// roberta|distilbert` and a sentence-transformers directory found by itself write model files whose hidden
// states, masked-LM and class logits match to 1e-5 (DistilBERT's sentence pairs among them), whose training
// gradients match to 1e-4, whose pooled (every sentence-transformers mode, several concatenated, a Dense module)
// and normalised embeddings match to 1e-6, and whose tokenizers give the reference's ids on varied text (with
// RoBERTa's <mask>, which takes the white space before it); long inputs are cut visibly; bad inputs are refused
// by name; converted models train, quantize and serve as our own.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <ostream>
#include <string>
#include <tuple>
#include <vector>

#include "heptapod/core/error.h"
#include "heptapod/decode/encoder.h"
#include "heptapod/io/atomic_file.h"
#include "heptapod/io/model_file.h"
#include "heptapod/io/safetensors.h"
#include "heptapod/model/parameter_names.h"
#include "hf_import_checks.h"
#include "test_process.h"
#include "test_util.h"

namespace heptapod {
namespace {

using test::quoted;
using test::convert_fixture;
using test::TempDir;

SafetensorsFile reference(const std::string& fixture) {
  return SafetensorsFile::read(test::fixture(fixture) + "/reference.safetensors");
}

// The reference's batch of texts (`ids`: batch/input_ids, or the masked batch/masked_ids).
Batch batch_of(const SafetensorsFile& ref, const std::string& ids = "batch/input_ids") {
  Batch b;
  b.B = static_cast<int>(ref.at(ids).shape[0]);
  b.S = static_cast<int>(ref.at(ids).shape[1]);
  b.src = ref.ints(ids);
  b.src_len = ref.ints("batch/lengths");
  b.tgt_len.assign(static_cast<std::size_t>(b.B), 0);
  return b;
}

// Hugging Face's module names of a family and ours: the embeddings' norm, a layer's modules, the heads.
struct Names {
  std::string prefix, layers;
  std::vector<std::pair<std::string, Module>> layer_modules, heads;
};

const Names kRoberta{"roberta.",
                     "encoder.layer.",
                     {{"attention.self.query", Module::SelfAttnQuery},
                      {"attention.self.key", Module::SelfAttnKey},
                      {"attention.self.value", Module::SelfAttnValue},
                      {"attention.output.dense", Module::SelfAttnOutput},
                      {"attention.output.LayerNorm", Module::SelfAttnNorm},
                      {"intermediate.dense", Module::FfnIn},
                      {"output.dense", Module::FfnOut},
                      {"output.LayerNorm", Module::FfnNorm}},
                     {{"lm_head.dense", Module::MlmTransform},
                      {"lm_head.layer_norm", Module::MlmNorm},
                      {"classifier.dense", Module::Pooler},
                      {"classifier.out_proj", Module::Classifier}}};
const Names kDistilBert{"distilbert.",
                        "transformer.layer.",
                        {{"attention.q_lin", Module::SelfAttnQuery},
                         {"attention.k_lin", Module::SelfAttnKey},
                         {"attention.v_lin", Module::SelfAttnValue},
                         {"attention.out_lin", Module::SelfAttnOutput},
                         {"sa_layer_norm", Module::SelfAttnNorm},
                         {"ffn.lin1", Module::FfnIn},
                         {"ffn.lin2", Module::FfnOut},
                         {"output_layer_norm", Module::FfnNorm}},
                        {{"vocab_transform", Module::MlmTransform},
                         {"vocab_layer_norm", Module::MlmNorm},
                         {"pre_classifier", Module::Pooler},
                         {"classifier", Module::Classifier}}};

// The reference's gradients (grad/<their name>) as (their name, our tensor name) pairs, for those it holds.
std::vector<std::pair<std::string, std::string>> gradient_names(const SafetensorsFile& ref, const Names& n,
                                                                const ModelConfig& c) {
  std::vector<std::pair<std::string, std::string>> out;
  auto add = [&](const std::string& theirs, const std::string& ours) {
    if (ref.find("grad/" + theirs)) out.emplace_back(theirs, ours);
  };
  auto module = [&](const std::string& theirs, const std::string& ours) {
    add(theirs + ".weight", tensor_name(ours, Leaf::Weight));
    add(theirs + ".bias", tensor_name(ours, Leaf::Bias));
  };
  const std::string e = n.prefix + "embeddings.";
  add(e + "word_embeddings.weight", source_embedding_name(c));
  add(e + "position_embeddings.weight", tensor_name(Module::Positions, Leaf::Weight, Stack::Encoder));
  add(e + "token_type_embeddings.weight", tensor_name(Module::TokenTypes, Leaf::Weight));
  module(e + "LayerNorm", module_name(Module::EmbeddingNorm, Stack::Encoder));
  for (int i = 0; i < c.encoder_layers; ++i)
    for (const auto& [theirs, ours] : n.layer_modules)
      module(n.prefix + n.layers + std::to_string(i) + "." + theirs, module_name(ours, Stack::Encoder, i));
  for (const auto& [theirs, ours] : n.heads) module(theirs, module_name(ours));
  add("lm_head.bias", module_name(Module::MlmOutputBias));
  add("vocab_projector.bias", module_name(Module::MlmOutputBias));
  return out;
}

// One training step's loss and gradients on `batch` against the reference's (mean loss, grad/<name>).
void expect_gradients(Transformer<float>& model, const Batch& batch, const SafetensorsFile& ref, const Names& names) {
  ParameterStore<float>& p = model.parameters();
  Arena arena;
  p.zero_grads();
  const LossTotals t = model.forward_backward(batch, StepOptions{}, arena);
  const double expect_loss = ref.floats<double>("expect/loss")[0];
  EXPECT_NEAR(t.loss / t.tokens, expect_loss, 1e-5 * expect_loss);
  const auto pairs = gradient_names(ref, names, model.config());
  std::size_t checked = 0;
  for (const auto& [theirs, ours] : pairs) {
    std::size_t index = p.specs().size();
    for (std::size_t i = 0; i < p.specs().size(); ++i)
      if (p.specs()[i].name == ours) index = i;
    ASSERT_LT(index, p.specs().size()) << ours;
    const std::vector<double> want = ref.floats<double>("grad/" + theirs);
    ASSERT_EQ(want.size(), static_cast<std::size_t>(p.specs()[index].numel())) << theirs;
    double scale = 0;
    for (double g : want) scale = std::max(scale, std::abs(g));
    // The floor keeps tensors whose gradient is rounding noise (the keys' biases) from failing on it.
    EXPECT_LT(test::max_rel_error(p.grads() + p.offset(index), want.data(), want.size(), 1e-2), 1e-4)
        << "gradient of " << theirs << " (" << ours << "), largest " << scale;
    ++checked;
  }
  std::size_t in_reference = 0;
  for (const auto& e : ref.tensors()) in_reference += e.name.rfind("grad/", 0) == 0;
  EXPECT_EQ(checked, in_reference) << "every gradient of the reference compared";
}

// The texts as the model's Encoder lays them out give the reference's batch, and the varied texts the
// reference tokenizer's ids.
void expect_tokenizer_as_reference(const Encoder& encoder, const SafetensorsFile& ref, const Batch& b) {
  test::expect_tokenized_as_reference(encoder, ref, b);
  const auto varied = nlohmann::json::parse(ref.metadata("tokenizer_texts")).get<std::vector<std::string>>();
  const auto ids = nlohmann::json::parse(ref.metadata("tokenizer_ids")).get<std::vector<std::vector<int>>>();
  ASSERT_EQ(varied.size(), ids.size());
  for (std::size_t i = 0; i < varied.size(); ++i)
    EXPECT_EQ(encoder.vocabulary().encode(varied[i]), ids[i]) << "\"" << varied[i] << "\"";
}

// A masked-LM fixture: hidden states and the head's logits at every real row within 1e-5, the tokenizer's
// ids, and one training step's gradients within 1e-4. Returns the model's config.
ModelConfig expect_masked_lm(const std::string& fixture, const std::string& from, const Names& names) {
  TempDir dir;
  std::string log;
  const std::string path = convert_fixture(fixture, from, dir, log);
  EXPECT_HAS_SUBSTR(log, "position_ids");  // the buffer is dropped with a notice
  const SafetensorsFile ref = reference(fixture);
  const auto model = load_model(path);
  const ModelConfig c = model->config();
  EXPECT_TRUE(c.mlm_head);
  const Batch b = batch_of(ref);
  test::expect_bert_masked_lm(*model, b, ref);
  expect_tokenizer_as_reference(Encoder(path), ref, b);
  Batch train = batch_of(ref, "batch/masked_ids");
  train.mlm_targets = ref.ints("batch/mlm_targets");
  expect_gradients(*model, train, ref, names);
  return c;
}

// A classifier fixture: class logits, the pooled vectors and the Encoder's probabilities within 1e-5 (the
// texts through the model's own tokenizer and pair layout), and one training step's gradients within 1e-4.
ModelConfig expect_classifier(const std::string& fixture, const std::string& from, const Names& names) {
  TempDir dir;
  std::string log;
  const std::string path = convert_fixture(fixture, from, dir, log);
  const SafetensorsFile ref = reference(fixture);
  const auto model = load_model(path);
  const ModelConfig c = model->config();
  EXPECT_EQ(c.labels, 3);
  EXPECT_EQ(c.pooling, Pooling::Cls);
  Batch b = batch_of(ref);
  b.labels = ref.ints("batch/labels");
  Encoder encoder(path);
  expect_tokenizer_as_reference(encoder, ref, b);
  test::expect_classifier_as_reference(*model, b, encoder, ref);
  expect_gradients(*model, b, ref, names);
  return c;
}

TEST(ImportEncoders, RobertaMaskedLmMatchesItsReference) {
  const ModelConfig c = expect_masked_lm("roberta", "roberta", kRoberta);
  EXPECT_EQ(c.position_offset, 2);  // past the padding id 1
  EXPECT_EQ(c.token_types, 1);
  EXPECT_TRUE(c.double_separator);
  EXPECT_EQ(c.pad_id, 1);
  EXPECT_EQ(c.bos_id, 0);
  EXPECT_EQ(c.eos_id, 2);
  EXPECT_EQ(c.mask_id, c.src_vocab_size - 1);
}

TEST(ImportEncoders, RobertaClassifierMatchesItsReference) {
  expect_classifier("roberta_classifier", "roberta", kRoberta);
}

TEST(ImportEncoders, XlmRobertaMaskedLmMatchesItsReference) {
  const ModelConfig c = expect_masked_lm("xlm_roberta", "roberta", kRoberta);
  EXPECT_EQ(c.mask_id, c.src_vocab_size - 1);  // after the SentencePiece model's pieces
}

TEST(ImportEncoders, DistilBertMaskedLmMatchesItsReference) {
  const ModelConfig c = expect_masked_lm("distilbert", "distilbert", kDistilBert);
  EXPECT_EQ(c.token_types, 0);
  EXPECT_EQ(c.layer_norm_eps, 1e-12f);
}

// Its texts hold a sentence pair: [CLS] A [SEP] B [SEP], every token of type 0 (DistilBERT has no token types).
TEST(ImportEncoders, DistilBertClassifierMatchesItsReference) {
  const ModelConfig c = expect_classifier("distilbert_classifier", "distilbert", kDistilBert);
  EXPECT_TRUE(c.relu_pooler);
}

// RoBERTa's <mask> written in text takes the white space before it, as Hugging Face's added token does (lstrip):
// by the family's default, or as the snapshot's tokenizer.json says; XLM-R reads it as its token too. (The
// reference's ids of varied text with <mask> are checked in the masked-LM tests above.)
TEST(ImportEncoders, RobertaMaskTakesTheSpaceBeforeIt) {
  TempDir dir;
  std::string log;
  for (const char* fixture : {"roberta", "xlm_roberta"}) {
    const Encoder encoder(convert_fixture(fixture, "roberta", dir, log));
    const Vocabulary& v = encoder.vocabulary();
    std::vector<int> want = v.encode("Hello");
    want.push_back(encoder.config().mask_id);
    const std::vector<int> bang = v.encode("!");
    want.insert(want.end(), bang.begin(), bang.end());
    EXPECT_EQ(v.encode("Hello <mask>!"), want) << fixture;
    EXPECT_EQ(v.encode("Hello \t <mask>!"), want) << fixture;
  }
  // A tokenizer.json whose <mask> strips the other side instead.
  const std::string copy = dir.file("roberta-rstrip");
  std::filesystem::copy(test::fixture("roberta"), copy);
  write_file_atomic(copy + "/tokenizer.json", [](std::ostream& out) {
    out << R"({"added_tokens": [{"id": 4, "content": "<mask>", "lstrip": false, "rstrip": true, "special": true}]})";
  });
  const std::string path = dir.file("roberta-rstrip.htp");
  ASSERT_EQ(test::run_heptapod("convert " + quoted(copy) + " --from roberta -o " + quoted(path), dir, log), 0) << log;
  const Encoder encoder(path);
  const Vocabulary& v = encoder.vocabulary();
  std::vector<int> want = v.encode("Hello ");
  want.push_back(encoder.config().mask_id);
  const std::vector<int> bang = v.encode("!");
  want.insert(want.end(), bang.begin(), bang.end());
  EXPECT_EQ(v.encode("Hello <mask>  !"), want);
  EXPECT_NE(v.encode("Hello <mask>!"), v.encode("Hello<mask>!"));
}

// The first text of each of a reference's texts.
std::vector<std::string> reference_texts(const SafetensorsFile& ref) {
  std::vector<std::string> texts;
  for (const auto& t : nlohmann::json::parse(ref.metadata("texts"))) texts.push_back(t[0].get<std::string>());
  return texts;
}

// The vectors one after the other.
std::vector<float> concatenated(const std::vector<std::vector<float>>& vectors) {
  std::vector<float> out;
  for (const auto& v : vectors) out.insert(out.end(), v.begin(), v.end());
  return out;
}

// `heptapod embed -m model` of the text file `in` with `options`: the first line's vector (the command's log in
// `log`).
std::vector<float> embedded_line(const std::string& model, const std::string& in, const std::string& options,
                                 TempDir& dir, std::string& log) {
  EXPECT_EQ(test::run_heptapod("embed -m " + quoted(model) + " -i " + quoted(in) + " -o " + quoted(dir.file("v.jsonl")) +
                                   options,
                               dir, log),
            0)
      << log;
  return nlohmann::json::parse(read_file(dir.file("v.jsonl"))).get<std::vector<float>>();
}

// A sentence-transformers directory is found by its modules.json: the model embeds as the library does by
// default (mean pooling, normalised, inputs cut to max_seq_length), and by the other modes when asked.
TEST(ImportEncoders, SentenceTransformersEmbedsAsTheLibrary) {
  TempDir dir;
  std::string log;
  const std::string path = convert_fixture("sentence_transformers", "", dir, log);
  const SafetensorsFile ref = reference("sentence_transformers");
  Encoder encoder(path);
  const ModelConfig& c = encoder.config();
  EXPECT_EQ(c.embed_pooling, std::vector<Pooling>{Pooling::Mean});
  EXPECT_TRUE(c.embed_normalize);
  EXPECT_EQ(c.max_input_tokens, 12);
  const Batch b = batch_of(ref);
  const std::vector<std::string> texts = reference_texts(ref);
  for (std::size_t i = 0; i < texts.size(); ++i) {
    const EncoderInput in = encoder.encode_text(texts[i]);
    const auto first = b.src.begin() + static_cast<long>(i) * b.S;
    EXPECT_EQ(in.tokens, std::vector<int>(first, first + b.src_len[i])) << "text " << i;
  }
  auto expect_embedding = [&](const EmbedOptions& o, const std::string& name) {
    const std::vector<float> got = concatenated(encoder.embed(texts, o));
    const std::vector<float> want = ref.floats<float>("expect/embedding/" + name);
    EXPECT_LT(test::max_rel_error(got.data(), want.data(), want.size()), 1e-6) << name;
  };
  expect_embedding(EmbedOptions{}, "mean_normalized");  // the model's defaults
  for (const auto& [pooling, name] :
       {std::pair{Pooling::Mean, "mean"}, {Pooling::Cls, "cls"}, {Pooling::Max, "max"},
        {Pooling::MeanSqrtLen, "mean_sqrt_len"}, {Pooling::WeightedMean, "weightedmean"}, {Pooling::LastToken, "lasttoken"}})
    for (const bool normalize : {false, true}) {
      EmbedOptions o;
      o.pooling = pooling;
      o.normalize = normalize;
      expect_embedding(o, std::string(name) + (normalize ? "_normalized" : ""));
    }
  // The command line's default is the model's too.
  const std::vector<float> line = embedded_line(path, dir.write("in.txt", texts[0] + "\n"), "", dir, log);
  const std::vector<float> want = ref.floats<float>("expect/embedding/mean_normalized");
  ASSERT_EQ(line.size(), static_cast<std::size_t>(c.d_model));
  for (std::size_t k = 0; k < line.size(); ++k) EXPECT_NEAR(line[k], want[k], 1e-6);
}

// Every pooling mode at once (concatenated in sentence-transformers' order), then a Dense module (tanh) and
// Normalize: the model's default embedding is the reference's; `embed` writes its width; a single mode asked
// for leaves the Dense module out (its input is six modes wide).
TEST(ImportEncoders, SentenceTransformersConcatenatedModesAndDense) {
  TempDir dir;
  std::string log;
  const std::string path = convert_fixture("sentence_transformers_dense", "", dir, log);
  const SafetensorsFile ref = reference("sentence_transformers_dense");
  Encoder encoder(path);
  const ModelConfig& c = encoder.config();
  EXPECT_EQ(pooling_names(c.embed_pooling), "cls+max+mean+mean_sqrt_len+weightedmean+lasttoken");
  EXPECT_EQ(c.embed_dense_features, 24);
  EXPECT_TRUE(c.embed_dense_bias);
  EXPECT_TRUE(c.embed_dense_tanh);
  EXPECT_TRUE(c.embed_normalize);
  EXPECT_EQ(encoder.embedding_width({}), 24);
  const std::vector<std::string> texts = reference_texts(reference("sentence_transformers"));
  const std::vector<float> got = concatenated(encoder.embed(texts, {}));
  const std::vector<float> want = ref.floats<float>("expect/embedding/default");
  ASSERT_EQ(got.size(), want.size());
  EXPECT_LT(test::max_rel_error(got.data(), want.data(), want.size()), 1e-6);
  EmbedOptions one;
  one.pooling = Pooling::Mean;
  EXPECT_EQ(encoder.embedding_width(one), c.d_model);
  EXPECT_EQ(encoder.embed({texts[0]}, one)[0].size(), static_cast<std::size_t>(c.d_model));
  const std::string in = dir.write("in.txt", texts[0] + "\n");
  const std::vector<float> line = embedded_line(path, in, "", dir, log);
  ASSERT_EQ(line.size(), 24u);
  for (std::size_t k = 0; k < 24; ++k) EXPECT_NEAR(line[k], want[k], 1e-6);
  ASSERT_EQ(test::run_heptapod("embed -m " + quoted(path) + " -i " + quoted(in) + " -o " + quoted(dir.file("v.npy")),
                               dir, log),
            0)
      << log;
  // The model file keeps the new fields and the Dense weights through a save and load.
  const ModelConfig saved = read_model_config(SafetensorsFile::read(path));
  EXPECT_EQ(saved.embed_pooling, c.embed_pooling);
  EXPECT_EQ(saved.embed_dense_features, 24);
}

// A text past max_seq_length is cut to it, as sentence-transformers cuts it, but visibly: `embed` warns for the
// line; --max-length cuts elsewhere (up to the learned positions), the vector that of the text cut there.
TEST(ImportEncoders, SentenceTransformersCutsLongInputsVisibly) {
  TempDir dir;
  std::string log;
  const std::string path = convert_fixture("sentence_transformers", "", dir, log);
  Encoder encoder(path);
  EXPECT_EQ(encoder.input_limit(), 12);
  const std::string text = "The cat sat on the mat. Where is the dog? Hello, world! 42 cats like the sun.";
  EXPECT_GT(encoder.vocabulary().encode(text).size(), 30u);
  EXPECT_EQ(encoder.encode_text(text).tokens.size(), 12u);
  EXPECT_TRUE(encoder.encode_text(text).truncated);
  const std::string in = dir.write("in.txt", text + "\n");
  for (const int length : {0, 8, 30}) {
    const std::vector<float> got = embedded_line(path, in, length ? " --max-length " + std::to_string(length) : "", dir, log);
    const int limit = length ? length : 12;
    EXPECT_HAS_SUBSTR(log, "line 1: longer than the model's " + std::to_string(limit) + " tokens");
    Encoder cut(path);
    cut.limit_inputs(limit, "--max-length");
    EXPECT_EQ(cut.encode_text(text).tokens.size(), static_cast<std::size_t>(limit));
    const std::vector<float> want = cut.embed({text}, {})[0];
    ASSERT_EQ(got.size(), want.size());
    EXPECT_LT(test::max_rel_error(got.data(), want.data(), want.size()), 1e-6) << length;
  }
  EXPECT_NE(test::run_heptapod("embed -m " + quoted(path) + " -i " + quoted(in) + " --max-length 41", dir, log), 0);
  EXPECT_HAS_SUBSTR(log, "--max-length: 41 is not in [3, 40]");
}

// The embedding fields in a model file's config: written only when not the default, read back; modes out of
// sentence-transformers' order, or named twice, are refused.
TEST(ImportEncoders, EmbeddingFieldsRoundTrip) {
  ModelConfig c = one_stack_config(ModelConfig{}, Architecture::EncoderOnly, 100);
  EXPECT_EQ(to_json(c).find("embed_"), std::string::npos);
  c.embed_pooling = {Pooling::Cls, Pooling::MeanSqrtLen, Pooling::LastToken};
  c.embed_dense_features = 7;
  c.embed_dense_bias = false;
  c.embed_dense_tanh = true;
  validate(c);
  EXPECT_EQ(c.pooled_width(), 3 * c.d_model);
  EXPECT_EQ(c.embedding_width(), 7);
  const ModelConfig back = model_config_from_json(to_json(c), "test");
  EXPECT_EQ(back.embed_pooling, c.embed_pooling);
  EXPECT_EQ(back.embed_dense_features, 7);
  EXPECT_FALSE(back.embed_dense_bias);
  EXPECT_TRUE(back.embed_dense_tanh);
  EXPECT_HAS_SUBSTR(to_json(c), "\"cls+mean_sqrt_len+lasttoken\"");
  for (const char* bad : {"mean+cls", "mean+mean", "mean+", "median"}) {
    std::string json = to_json(c);
    json.replace(json.find("cls+mean_sqrt_len+lasttoken"), std::string("cls+mean_sqrt_len+lasttoken").size(), bad);
    EXPECT_THROW(model_config_from_json(json, "test"), Error) << bad;
  }
  c.embed_dense_features = 0;
  EXPECT_THROW(validate(c), Error);  // a bias or activation setting without a Dense module
}

void put(const std::string& path, const std::string& text) {
  write_file_atomic(path, [&](std::ostream& out) { out << text; });
}

// sentence-transformers over a BERT (all-MiniLM's) or DistilBERT body: the module files over their checkpoint
// directory; the pooling they name is the model's default.
TEST(ImportEncoders, SentenceTransformersOverBertAndDistilBert) {
  TempDir dir;
  for (const auto& [fixture, mode, pooling] : {std::tuple{"bert", "pooling_mode_cls_token", Pooling::Cls},
                                               {"distilbert", "pooling_mode_max_tokens", Pooling::Max}}) {
    const std::string st = dir.file(std::string(fixture) + "-st");
    std::filesystem::copy(test::fixture(fixture), st, std::filesystem::copy_options::recursive);
    std::filesystem::create_directories(st + "/1_Pooling");
    put(st + "/modules.json",
        R"([{"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
            {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"}])");
    put(st + "/1_Pooling/config.json", nlohmann::json{{"word_embedding_dimension", 32}, {mode, true}}.dump());
    put(st + "/sentence_bert_config.json", R"({"max_seq_length": 256, "do_lower_case": false})");
    std::string log;
    const std::string path = dir.file(std::string(fixture) + ".htp");
    ASSERT_EQ(test::run_heptapod("convert " + quoted(st) + " -o " + quoted(path), dir, log), 0) << log;
    Encoder encoder(path);
    EXPECT_EQ(encoder.config().embed_pooling, std::vector<Pooling>{pooling}) << fixture;
    EXPECT_FALSE(encoder.config().embed_normalize);
    EXPECT_EQ(encoder.config().encoder_input_limit(), encoder.config().position_limit());  // 256 is past them
    EmbedOptions o;
    o.pooling = pooling;
    o.normalize = false;
    EXPECT_EQ(encoder.embed({"the cat sat on the mat"}, {}), encoder.embed({"the cat sat on the mat"}, o)) << fixture;
  }
}

// A copy of a fixture directory with `edit` applied to it.
std::string edited_copy(const std::string& fixture, TempDir& dir, const std::string& name,
                        const std::function<void(const std::string&)>& edit) {
  const std::string copy = dir.file(name);
  std::filesystem::copy(test::fixture(fixture), copy, std::filesystem::copy_options::recursive);
  edit(copy);
  return copy;
}

void patch_json(const std::string& path, const nlohmann::json& patch) {
  nlohmann::json j = nlohmann::json::parse(read_file(path));
  j.merge_patch(patch);
  put(path, j.dump());
}

// Bad input is refused with the file, key or value named.
TEST(ImportEncoders, BadInputIsRefusedByName) {
  TempDir dir;
  struct Case {
    std::string fixture, from, name;
    std::function<void(const std::string&)> edit;
    std::string expect;
  };
  const std::vector<Case> cases = {
      {"roberta", "roberta", "bert-type", [](const std::string& d) { patch_json(d + "/config.json", {{"model_type", "bert"}}); },
       "model_type"},
      {"roberta", "roberta", "no-merges", [](const std::string& d) { std::filesystem::remove(d + "/merges.txt"); },
       "merges.txt"},
      {"xlm_roberta", "roberta", "no-spm",
       [](const std::string& d) { std::filesystem::remove(d + "/sentencepiece.bpe.model"); }, "sentencepiece.bpe.model"},
      {"distilbert", "distilbert", "sinusoidal",
       [](const std::string& d) { patch_json(d + "/config.json", {{"sinusoidal_pos_embds", true}}); },
       "sinusoidal_pos_embds"},
      {"distilbert", "distilbert", "no-vocab", [](const std::string& d) { std::filesystem::remove(d + "/vocab.txt"); },
       "vocab.txt"},
      {"sentence_transformers", "", "no-mode",
       [](const std::string& d) { patch_json(d + "/1_Pooling/config.json", {{"pooling_mode_mean_tokens", false}}); },
       "no pooling mode"},
      {"sentence_transformers", "", "layer-norm",
       [](const std::string& d) {
         put(d + "/modules.json",
                           R"([{"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
                               {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
                               {"idx": 2, "name": "2", "path": "2_LayerNorm", "type": "sentence_transformers.models.LayerNorm"}])");
       },
       "sentence_transformers.models.LayerNorm"},
      {"sentence_transformers_dense", "", "relu",
       [](const std::string& d) {
         patch_json(d + "/2_Dense/config.json", {{"activation_function", "torch.nn.modules.activation.ReLU"}});
       },
       "2_Dense/config.json: \"activation_function\""},
      {"sentence_transformers_dense", "", "in-features",
       [](const std::string& d) { patch_json(d + "/1_Pooling/config.json", {{"pooling_mode_cls_token", false}}); },
       "\"in_features\" 192 is not the pooled width 160"},
      {"sentence_transformers_dense", "", "no-dense-weights",
       [](const std::string& d) { std::filesystem::remove(d + "/2_Dense/model.safetensors"); },
       "2_Dense/model.safetensors: missing"},
      {"sentence_transformers_dense", "", "normalize-before-dense",
       [](const std::string& d) {
         nlohmann::json m = nlohmann::json::parse(read_file(d + "/modules.json"));
         std::swap(m[2], m[3]);
         put(d + "/modules.json", m.dump());
       },
       "sentence_transformers.models.Dense\" is not supported there"},
      {"sentence_transformers", "", "gpt2-type",
       [](const std::string& d) { patch_json(d + "/config.json", {{"model_type", "gpt2"}}); }, "\"gpt2\""},
  };
  for (const Case& k : cases) {
    const std::string input = edited_copy(k.fixture, dir, k.name, k.edit);
    std::string log;
    EXPECT_NE(test::run_heptapod("convert " + quoted(input) + (k.from.empty() ? "" : " --from " + k.from) + " -o " +
                                     quoted(dir.file(k.name + ".htp")),
                                 dir, log),
              0)
        << k.name;
    EXPECT_HAS_SUBSTR(log, k.expect);
    EXPECT_EQ(log.find("terminate"), std::string::npos) << log;
  }
}

// Converted models fine-tune and serve as our own: RoBERTa by masked language modelling and as a classifier
// of sentence pairs (<s> A </s></s> B </s>, a fresh head from --pooling cls), DistilBERT as a classifier (its
// ReLU head); then quantize, classify, embed and score.
TEST(ImportEncoders, ConvertedEncodersFineTuneAndServe) {
  TempDir dir;
  std::string log;
  const std::string roberta = convert_fixture("roberta", "roberta", dir, log), distil = convert_fixture("distilbert", "distilbert", dir, log);
  const char* lines[] = {"The cat sat on the mat.", "Where is the dog?", "The dog is outside.", "We like the sun.",
                         "It is the cat.", "The dog sat outside.", "Hello, we like the cat.", "Where is it?"};
  std::string text, pairs, labels;
  for (int repeat = 0; repeat < 4; ++repeat)
    for (const char* line : lines) {
      const bool dog = std::string(line).find("dog") != std::string::npos;
      text += std::string(line) + "\n";
      pairs += std::string(line) + "\tIt is " + (dog ? "a dog." : "the world.") + "\n";
      labels += std::string(dog ? "dog" : "other") + "\n";
    }
  const std::string text_file = dir.write("text.txt", text), pair_file = dir.write("pairs.txt", pairs);
  const std::string label_file = dir.write("labels.txt", labels);
  const std::string train = " --steps 4 --batch-tokens 256 --log-every 2 --valid-every 100 --seed 3";
  auto run = [&](const std::string& command) {
    ASSERT_EQ(test::run_heptapod(command, dir, log), 0) << command << "\n" << log;
  };
  run("train --text " + quoted(text_file) + " --init " + quoted(roberta) + " -o " + quoted(dir.file("m")) + train);
  EXPECT_EQ(read_file(dir.file("m/metrics.jsonl")).find("nan"), std::string::npos);
  run("train --task classify --pooling cls --pairs --text " + quoted(pair_file) + " --labels " + quoted(label_file) +
      " --init " + quoted(roberta) + " -o " + quoted(dir.file("c")) + train);
  run("train --task classify --pooling cls --text " + quoted(text_file) + " --labels " + quoted(label_file) +
      " --init " + quoted(distil) + " -o " + quoted(dir.file("d")) + train);
  // DistilBERT's pairs: [CLS] A [SEP] B [SEP], no token types.
  run("train --task classify --pooling cls --pairs --text " + quoted(pair_file) + " --labels " + quoted(label_file) +
      " --init " + quoted(distil) + " -o " + quoted(dir.file("dp")) + train);
  {
    const ModelConfig c = read_model_config(SafetensorsFile::read(dir.file("c/model.htp")));
    EXPECT_TRUE(c.sentence_pairs);
    EXPECT_TRUE(c.double_separator);
    EXPECT_EQ(c.position_offset, 2);
    EXPECT_TRUE(read_model_config(SafetensorsFile::read(dir.file("d/model.htp"))).relu_pooler);
    // The pairs are laid out as RoBERTa lays them out, with its own start and end tokens.
    Encoder encoder(dir.file("c/model.htp"));
    const EncoderInput in = encoder.encode_pair("Where is the dog?", "It is a dog.");
    ASSERT_GE(in.tokens.size(), 6u);
    EXPECT_EQ(in.tokens.front(), 0);
    EXPECT_EQ(in.tokens.back(), 2);
    EXPECT_EQ(std::count(in.tokens.begin(), in.tokens.end(), 2), 3);
  }
  run("quantize -m " + quoted(dir.file("c/model.htp")) + " --to int8 -o " + quoted(dir.file("c8.htp")));
  const std::string in = dir.write("in.txt", "Where is the dog?\tIt is a dog.\nWe like the sun.\tIt is the world.\n");
  for (const std::string& model : {dir.file("c/model.htp"), dir.file("c8.htp"), dir.file("dp/model.htp")})
    run("classify -m " + quoted(model) + " -i " + quoted(in) + " -o " + quoted(dir.file("classes.txt")));
  const std::string plain = dir.write("plain.txt", "The cat sat on the mat.\nWhere is the dog?\n");
  run("classify -m " + quoted(dir.file("d/model.htp")) + " -i " + quoted(plain) + " -o " + quoted(dir.file("d.txt")));
  run("embed -m " + quoted(roberta) + " -i " + quoted(plain) + " --pooling max -o " + quoted(dir.file("v.jsonl")));
  run("score -m " + quoted(dir.file("m/model.htp")) + " -i " + quoted(plain) + " -o " + quoted(dir.file("s.txt")));
}

}  // namespace
}  // namespace heptapod
