// The decoder state that every search drives through the decoding loop (decoding_loop.h: beam search,
// sampling, and a server's continuous batching): per row ("hypothesis"), its self-attention keys and values at
// every position it has fed, and (in an encoder-decoder) its sentence's cross-attention keys and values,
// computed once from the encoder output. Each row is at its own position: a call feeds every row one token (a
// search step) or a run of tokens in one pass (a prompt's prefill, or rows that just joined beside rows
// further on). Rows join a running state (join()), leave it and are reordered (reorder(): beam selection,
// finished rows).
#pragma once

#include <memory>
#include <vector>

#include "heptapod/core/arena.h"
#include "heptapod/core/page_buffer.h"
#include "heptapod/layers/attention_step.h"
#include "heptapod/layers/relative_buckets.h"
#include "heptapod/layers/relative_positions.h"
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

  // Starts decoding B sentences afresh (join() onto an empty state): source tokens (B, S) with lengths (B); a
  // decoder-only model has none (S = 0, lengths 0). Each sentence begins with `rows_per_sentence` rows (the
  // beam), all at position 0. max_steps bounds every row's length (positions fed).
  void start(const int* src, int B, int S, const int* src_len, int rows_per_sentence, int max_steps,
             CachePrecision cache);
  // Adds B sentences to the running state (encoding their sources) and rows_per_sentence rows for each at
  // position 0, after the current rows. Returns the first new sentence's index (sentence_of()).
  int join(const int* src, int B, int S, const int* src_len, int rows_per_sentence);

  // Feeds one token per row, each at its row's next position, and returns each row's `top` (<= V) most
  // likely next tokens, valid until the next call.
  const NextTokens& step(const std::vector<int>& tokens, int top);
  // The same step returning every row's raw logits (rows, V) instead, valid until the next call: for what
  // needs the whole distribution (sampling, repetition guards, a forced token's probability).
  const float* step_logits(const std::vector<int>& tokens);
  // Feeds row r the tokens runs[r] at its next positions, all rows in one pass through the layers (at least
  // one token in all; a row given none stays where it is); returns every row's raw logits after its last
  // token (rows, V; zeros for a row given none), valid until the next call.
  const float* feed_logits(const std::vector<std::vector<int>>& runs);
  // The same pass without the output layer: a prompt's prefill whose logits nobody reads.
  void feed(const std::vector<std::vector<int>>& runs);
  // One row's `top` most likely tokens from its logits (V), computed block by block exactly as step() computes
  // them (the same log-sum-exp, the same ties): ids and log_probs (top). Returns the row's log-sum-exp.
  float best_of_row(const float* logits, int top, int* ids, float* log_probs) const;

  // Keeps rows `order` (each an index into the current rows, repeats allowed) in that order: after beam
  // selection, or to drop rows that are done. Cached keys and values no row reaches any more are freed.
  void reorder(const std::vector<int>& order);

  // Forgets the sentences that have no rows left and renumbers the others 0.. in their order (sentence_of()
  // changes): for a caller that keeps no sentence indices and joins sentences for ever (continuous batching),
  // whose per-sentence records would otherwise grow with every sentence joined.
  void compact_sentences();
  int sentences() const { return static_cast<int>(src_len_.size()); }  // started or joined, and not forgotten

  // Cross-attention of each row over its source at the row's last position fed (rows, S) with S =
  // padded_source_length(), averaged over heads, from the last decoder layer; valid until the next call.
  const float* last_cross_attention() const { return alignment_.data(); }

  int rows() const { return rows_; }
  const ModelConfig& config() const { return config_; }
  int vocabulary_size() const { return config_.tgt_vocab_size; }
  int length(int row) const { return length_[row]; }  // positions row has fed
  int max_steps() const { return max_steps_; }         // positions a row may feed, set by start()
  int sentence_of(int row) const { return row_sentence_[row]; }  // index over all sentences started or joined
  int source_length(int row) const { return src_len_[row_sentence_[row]]; }
  int padded_source_length() const { return S_; }  // the longest source of any sentence, at least its S

 private:
  // Encodes B sentences and stores every decoder layer's cross-attention keys and values of their sources
  // after those of earlier sentences (before join records the sentences).
  void add_cross_attention(const int* src, int B, int S, const int* src_len);
  // Before new sentences' cross keys/values are stored: drops those of sentences without rows once they hold
  // more than the rest (a search that only drops rows never pays for moving them); makes room for `rows` more.
  void make_cross_room(int rows);
  // Feeds counts[r] tokens to row r (tokens: all rows' runs end to end) through the decoder layers -> the
  // output (rows, C) at each row's last token (zeros for a row fed none).
  const float* advance(const int* tokens, const int* counts);
  // runs -> advance().
  const float* advance(const std::vector<std::vector<int>>& runs);
  const float* project_logits(const float* x);  // x (rows, C) -> full_logits_ (rows, V)
  // A free cache slot (its keys and values for every layer), reused or new; grows the cache when full.
  int take_slot();
  void attend_self(int layer, const float* q, int ldq, const float* kv, int ldkv, float* context) override;
  void attend_source(int layer, const float* q, int ldq, float* context) override;
  // q: (queries_, Q) query rows, ldq apart, against layer li's self-attention cache or cross keys/values,
  // whose elements are of type E (float or half); out: (queries_, Q).
  template <typename E>
  void attend(const float* q, int ldq, int li, bool cross, float* out, float* probs_out);
  void attend(const float* q, int ldq, int li, bool cross, float* out, float* probs_out);
  // Rows (n, 2K) of src (a key and a value each), ld apart, stored in the cache type from element `offset`
  // of `dst` on, one after the other.
  void store(const float* src, long ld, int n, void* dst, long offset) const;
  // One row (2K) of src stored in the cache type at element `at` of dst.
  void store_row(const float* src, void* dst, long at) const;
  std::size_t element_bytes() const;

  Transformer<float>& model_;
  ModelConfig config_;
  Arena encode_arena_;  // the encoder output of the sentences being added
  Arena step_arena_;    // one call's activations that outlive a layer
  Arena layer_arena_;   // one layer's transients within a call

  CachePrecision cache_ = CachePrecision::Float32;
  int S_ = 0, rows_ = 0, max_steps_ = 0;
  // Per sentence (every one started or joined): source length, first row in the cross keys/values, rows.
  std::vector<int> src_len_, cross_offset_, sentence_rows_;
  // Per decoder layer: cross_bytes_ bytes holding (cross_used_, 2K) elements of the cache type, each
  // sentence's real source positions' key and value from its cross_offset_ on; cross_used_ counts the rows in
  // use, live or not.
  std::vector<std::unique_ptr<std::byte[]>> cross_kv_;
  std::size_t cross_bytes_ = 0;
  int cross_used_ = 0, cross_live_ = 0;
  std::vector<int> row_sentence_;  // (rows)
  std::vector<int> length_;        // (rows) positions fed
  // The self-attention cache: slots of (L, 2, K) elements of the cache type (K: the key/value width, which
  // grouped-query attention narrows), layer li's key and value of one row at one position at element
  // (slot * L + li) * 2K. It is mapped on transparent huge pages, as
  // faulting it in 4 KB at a time costs more than the attention reading it on a virtual machine. Slots never
  // move: history_ says which slot holds a row's key and value at each position, so reorder() rewrites
  // indices, not cached vectors. A slot is shared by the rows whose histories hold it (slot_refs_) and free
  // again when none does.
  PageBuffer self_cache_;
  int slot_capacity_ = 0, slots_made_ = 0;
  std::vector<int> slot_refs_, free_slots_;
  std::vector<int> history_;  // (rows, max_steps_): history_(r, j) is the slot of row r's position j
  // The current call's query rows (every fed token): its row and position, each row's last query (-1: none).
  int queries_ = 0;
  std::vector<int> query_row_, query_position_, last_query_;
  std::vector<int> query_length_;  // (queries_) each query's row's length after the call
  std::vector<float> alignment_;  // (rows, S_) last_cross_attention()
  std::vector<float> last_hidden_;  // (rows, C) each row's last output when a call feeds several tokens
  std::vector<float> logits_;  // (rows, widest output block): the vocabulary is scored a block at a time
  std::vector<float> full_logits_;  // (rows, V): step_logits()' result
  std::vector<float> log_z_;   // (rows): running log-sum-exp of the logits
  std::vector<int> top_count_; // (rows): entries in each row's best list so far
  NextTokens next_;
  std::vector<float> stage_;  // (<= kStageRows, 2K): source keys|values before they are stored
  std::vector<int> ones_;     // (rows) one token per row
  // A relative model's (Transformer-XL's): per decoder layer, W_r R of the distances max_steps_ - 1 .. 0,
  // (max_steps_, C) (layers/relative_positions.h); empty for other models.
  std::vector<std::vector<float>> relative_projected_;
};

}  // namespace heptapod
