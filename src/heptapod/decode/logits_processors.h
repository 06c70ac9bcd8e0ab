// What turns a row's raw logits into the distribution a search or a sampler chooses from, as Hugging Face's
// logits processors define it, applied in this order: the repetition guards (repetition penalty, no repeated
// n-grams), then for sampling the temperature, top-k and top-p. Each works on one row of logits in place;
// a removed token gets -infinity.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace heptapod {

// Guards against degenerate repetition, for beam search and sampling alike (as CTranslate2 offers them).
struct RepetitionGuards {
  // > 1 makes every token already in the output less likely: its logit is divided by the penalty when
  // positive and multiplied by it when negative (Keskar et al. 2019, as Hugging Face applies it). 1: off.
  float repetition_penalty = 1.0f;
  // n > 0: a token that would repeat an n-gram the output already holds is banned. 0: off.
  int no_repeat_ngram = 0;
  bool active() const { return repetition_penalty != 1.0f || no_repeat_ngram > 0; }
};

// How a sampler draws each token.
struct SamplingOptions {
  float temperature = 1.0f;  // logits / temperature; 0 means greedy (the most likely token)
  int top_k = 0;             // keep the k most likely tokens (ties at the k-th kept); 0: all
  float top_p = 1.0f;        // keep the smallest set of most likely tokens whose probability reaches p; 1: all
  std::uint64_t seed = 0;
};

// The logit of a token a processor removed.
inline constexpr float kRemovedLogit = -std::numeric_limits<float>::infinity();

// Throws Error naming the first setting out of range (the guards: a finite penalty > 0, n >= 0; sampling: a
// finite temperature >= 0, top-k >= 0, top-p in (0, 1]).
void validate(const RepetitionGuards& guards);
void validate(const SamplingOptions& sampling);

// logits: (V) one row; history: the tokens the row has produced so far.
void apply_repetition_guards(float* logits, int V, const std::vector<int>& history, const RepetitionGuards& guards);

// exp(value - top) in double, as every term of a row's softmax is computed here (kernels::exp_terms, within
// about 1 ulp of exp; its bits, not the C library's, are the draws' reference).
double exp_term_of(float value, double top);

// A row's exp(logit - largest logit) in double, computed once over the vocabulary and read again by the steps
// after it: sampling computes them for the model's distribution (its log-probabilities), and the warpers and
// the draw take a token's term from here wherever its logit and the row's largest are still the ones they
// were computed from, which gives the same bits as computing it again.
class RowExps {
 public:
  // logits: (V), kept by pointer until the next compute -> the largest, each term, and their sum in id order
  // (removed tokens skipped). drawn: (V) the row draws will be made from (copied), or null for `logits`
  // itself; when it is `logits` with some tokens removed (banned) and the same largest value, its running sums
  // come from the same pass, so draw() serves it too.
  void compute(const float* logits, int V, const float* drawn = nullptr);
  double top() const { return top_; }
  double sum() const { return sum_; }
  // log sum exp(logits): what log_normalizer gives for the same row.
  double log_normalizer() const;
  // Whether `row` (V) is, bit for bit, the row compute() prepared draws for, with a finite sum.
  bool holds(const float* row, int V) const;
  // draw_token on that row (holds() true): the same token, found by a binary search of the running sums
  // instead of a pass adding the terms again and a walk.
  int draw(double u) const;
  // exp(value - top) for token v: the kept term when value and top are the ones it was computed from.
  double term(int v, float value, double top) const {
    if (logits_ && top == top_ && value == logits_[v]) return terms_[static_cast<std::size_t>(v)];
    return exp_term_of(value, top);
  }

 private:
  const float* logits_ = nullptr;
  int V_ = 0;
  std::vector<double> terms_;    // (V) exp(logit - top), 0 for a removed token
  std::vector<float> drawn_;     // (V) the row draws are prepared for
  std::vector<double> running_;  // (V) its terms' sum up to and including each token, added in id order
  double top_ = 0, sum_ = 0;
  double drawn_sum_ = 0;  // the drawn row's sum of terms
  bool draws_ready_ = false;
};

// Temperature, top-k and top-p on one row's logits (V), in place; with temperature 0 or top-k 1 only the
// most likely token (the smallest id among equals) is left. Top-k keeps the k largest seen in one pass;
// top-p sorts only the head of the row it keeps. `exps`, when given, supplies terms already computed.
void apply_sampling_warpers(float* logits, int V, const SamplingOptions& options, const RowExps* exps = nullptr);

// A token drawn from softmax(logits) (V), where -infinity entries have probability 0; u: uniform in [0, 1).
// -1 when every token was removed. `exps`, when given, supplies terms already computed.
int draw_token(const float* logits, int V, double u, const RowExps* exps = nullptr);

// In place: logits (V) -> natural log-probabilities log softmax(logits), each logits[v] - log_normalizer.
void log_softmax(float* logits, int V);
// log sum exp(logits) (V), in double: the largest logit plus the log of the sum of exp(logit - largest).
double log_normalizer(const float* logits, int V);

}  // namespace heptapod
