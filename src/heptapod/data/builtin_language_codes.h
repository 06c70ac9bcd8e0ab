// The language codes a tokenizer falls back on when its files do not list them (older NLLB, M2M100 and
// mBART-50 snapshots whose tokenizer_config.json lacks "additional_special_tokens"): Hugging Face's built-in
// lists, in the order that fixes their ids. Data only.
#pragma once

#include <string>
#include <vector>

namespace heptapod {

// NLLB-200's 202 codes ("ace_Arab" ... "zul_Latn"), as NllbTokenizer's FAIRSEQ_LANGUAGE_CODES.
const std::vector<std::string>& nllb_builtin_codes();

// mBART-50's 52 codes ("ar_AR" ... "sl_SI"), as MBart50Tokenizer's FAIRSEQ_LANGUAGE_CODES.
const std::vector<std::string>& mbart50_builtin_codes();

// M2M100's codes of a `language_codes` set of tokenizer_config.json: "m2m100" (100 codes, "__af__" ...
// "__zu__") or "wmt21" (8); empty for another name.
std::vector<std::string> m2m100_builtin_codes(const std::string& set);

}  // namespace heptapod
