// Generated tokens' log-probabilities (decode/token_log_probs.h) as JSON, in the three shapes that report
// them: Heptapod's own (`heptapod generate --logprobs` lines), OpenAI's completions (`logprobs: K`, /v1/completions)
// and OpenAI's chat completions (`logprobs: true, top_logprobs: K`, /v1/chat/completions). Each token is
// named by its text and raw bytes from the vocabulary (Vocabulary::token_bytes; a token that holds part of a
// character has the text "bytes:\xNN..." and its bytes as they are). Every function takes a whole output's
// records or one streamed piece's (GenerateOptions::stream's rule), so a stream's chunks add up to the reply.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <span>
#include <string_view>

#include "heptapod/data/vocabulary.h"
#include "heptapod/decode/token_log_probs.h"

namespace heptapod {

// Heptapod's records: [{"token", "id", "bytes": [ints], "logprob", "top_logprobs": [{"token", "id", "bytes",
// "logprob"}]}], the top ones the K most likely, best first.
nlohmann::json token_log_probs_json(std::span<const TokenLogProb> records, const Vocabulary& vocab);

// OpenAI's completions logprobs: {"tokens": [text], "token_logprobs": [logprob], "top_logprobs": [{text:
// logprob}] (the K most likely and the token taken: up to K + 1 entries), "text_offset": [int]}. text_offset
// counts characters (code points, as OpenAI's Python indexes a string) in the choice's returned text: `before`
// (what precedes the new text there, e.g. an echoed prompt's characters) plus the characters of `new_text`
// (the output's new text, or for a streamed piece all of it streamed so far, the piece included) before the
// token's byte offset (TokenLogProb::text_offset).
nlohmann::json completion_logprobs(std::span<const TokenLogProb> records, const Vocabulary& vocab,
                                   std::string_view new_text, std::size_t before);

// OpenAI's chat completions logprobs, for a whole reply's records or a streamed chunk's:
// {"content": [{"token", "logprob", "bytes": [ints], "top_logprobs": [{"token", "logprob", "bytes"}]}]}, the top
// ones the K most likely (K = the request's top_logprobs, which GenerateOptions::logprobs carries), best first.
// /v1/chat/completions puts it in choices[i].logprobs, and in each chunk's choices[i].logprobs for the tokens
// of that chunk's delta.content.
nlohmann::json chat_logprobs(std::span<const TokenLogProb> records, const Vocabulary& vocab);

}  // namespace heptapod
