// The decoder run one position at a time for search: a per-layer key/value cache for self-attention, and
// (in an encoder-decoder) cross-attention keys/values computed once per sentence from the encoder output; a
// decoder-only model's causal stack runs the same way without them. Rows ("hypotheses") can be reordered
// (beam search keeps the best) and dropped (finished sentences leave the batch).
#pragma once

#include <vector>

#include "heptapod/core/arena.h"
#include "heptapod/core/page_buffer.h"
#include "heptapod/layers/attention_step.h"
#include "heptapod/model/transformer.h"

namespace heptapod {

// How the self-attention cache and the cross-attention keys/values are stored. Float16 halves their memory
// and the bytes each step reads; attention still computes in float. Float32 keeps the decoder's numbers
// identical to a full forward pass.
enum class CachePrecision { Float32, Float16 };

// Each row's most likely next tokens, best first (ties to the smaller id).
struct NextTokens {
  int top = 0;
  std::vector<int> ids;          // (rows, top)
  std::vector<float> log_probs;  // (rows, top): natural log-probabilities
};

// Runs the model's own decoder layers (Transformer::decode_step) and keeps what they attend to: it is their
// AttentionCache.
class IncrementalDecoder final : private AttentionCache<float> {
 public:
  explicit IncrementalDecoder(Transformer<float>& model);

  // Starts decoding B sentences: source tokens (B, S) with lengths (B); a decoder-only model has none (S = 0,
  // lengths 0). Each sentence begins with `rows_per_sentence` hypotheses (the beam), all at position 0.
  // max_steps bounds the output length.
  void start(const int* src, int B, int S, const int* src_len, int rows_per_sentence, int max_steps,
             CachePrecision cache);

  // Feeds one token per row at the current position and returns each row's `top` (<= V) most likely next
  // tokens, valid until the next call. Afterwards the position advances by one.
  const NextTokens& step(const std::vector<int>& tokens, int top);
  // The same step returning every row's raw logits (rows, V) instead, valid until the next call: for what
  // needs the whole distribution (sampling, repetition guards, a forced token's probability).
  const float* step_logits(const std::vector<int>& tokens);
  // One row's `top` most likely tokens from its logits (V), computed block by block exactly as step() computes
  // them (the same log-sum-exp, the same ties): ids and log_probs (top). Returns the row's log-sum-exp.
  float best_of_row(const float* logits, int top, int* ids, float* log_probs) const;

  // Keeps rows `order` (each an index into the current rows, repeats allowed, at most as many as start()
  // made) in that order: after beam selection, or to drop the rows of finished sentences.
  void reorder(const std::vector<int>& order);

  // Cross-attention of each row over the source at the last step (rows, S), averaged over heads, from the
  // last decoder layer; valid until the next call.
  const float* last_cross_attention() const { return alignment_.data(); }

  int rows() const { return rows_; }
  const ModelConfig& config() const { return config_; }
  int vocabulary_size() const { return config_.tgt_vocab_size; }
  int position() const { return position_; }
  int sentence_of(int row) const { return row_sentence_[row]; }  // index into the B of start()
  int source_length(int row) const { return src_len_[row_sentence_[row]]; }
  int padded_source_length() const { return S_; }

 private:
  // Encodes the sources and caches every decoder layer's cross-attention keys and values of them, in the
  // cache's element type (`element` bytes).
  void start_cross_attention(const int* src, int B, int S, const int* src_len, std::size_t element);
  // Feeds one token per row at the current position through the decoder layers -> their output (rows, C).
  const float* advance(const std::vector<int>& tokens);
  void attend_self(int layer, const float* q, int ldq, const float* kv, int ldkv, float* context) override;
  void attend_source(int layer, const float* q, int ldq, float* context) override;
  // q: (rows, C) query rows, ldq apart, against layer li's cross keys/values or self-attention cache, whose
  // elements are of type E (float or half); out: (rows, C).
  template <typename E>
  void attend(const float* q, int ldq, int li, bool cross, float* out, float* probs_out);
  void attend(const float* q, int ldq, int li, bool cross, float* out, float* probs_out);
  // Rows (n, 2C) of src (a key and a value each), ld apart, stored in the cache type from element `offset`
  // of `dst` on, one after the other.
  void store(const float* src, long ld, int n, void* dst, long offset) const;

  Transformer<float>& model_;
  ModelConfig config_;
  // Per decoder layer: (N, 2C) elements of the cache type, in arena_: the N real source positions' key and
  // value.
  std::vector<void*> cross_kv_;
  Arena arena_;       // encoder output and cross keys/values for the current batch
  Arena step_arena_;  // one step's activations

  CachePrecision cache_ = CachePrecision::Float32;
  int B_ = 0, S_ = 0, rows_ = 0, cache_rows_ = 0, position_ = 0, max_steps_ = 0;
  std::vector<int> src_len_, row_sentence_;
  std::vector<int> cross_offset_;  // (B): a sentence's first row in the cross keys/values
  std::vector<int> step_positions_;  // (rows): every row's position this step
  // Per-step scratch, sized for the largest row count seen: attention scores and the alignment.
  std::vector<float> scores_, alignment_;
  std::vector<float> logits_;  // (rows, widest output block): the vocabulary is scored a block at a time
  std::vector<float> full_logits_;  // (rows, V): step_logits()' result
  std::vector<float> log_z_;   // (rows): running log-sum-exp of the logits
  std::vector<int> top_count_; // (rows): entries in each row's best list so far
  NextTokens next_;
  std::vector<float> stage_;  // (<= kStageRows, 2C): source keys|values before they are stored
  // The self-attention cache, one buffer for all layers, position after position: position j's slab holds
  // (L, slab_rows_[j], 2, C) elements of the cache type, each layer's key and value for the slab_rows_[j]
  // rows that decoded position j. Slabs are packed end to end from slab_start_[j] (elements), so the buffer
  // holds no room for finished rows and is touched front to back; it is mapped on transparent huge pages,
  // as faulting it in 4 KB at a time costs more than the attention reading it on a virtual machine. Entries
  // never move: history_ says which slab row holds a hypothesis's key and value at each position.
  PageBuffer self_cache_;
  std::vector<long> slab_start_;  // (max_steps)
  std::vector<int> slab_rows_;    // (max_steps)
  // (max_steps, cache_rows_): history_(j, r) is the slab row holding row r's key and value at position j;
  // reorder() rewrites these indices instead of moving cached vectors.
  std::vector<int> history_;
};

}  // namespace heptapod
