// Reading one node of a Hugging Face tokenizer.json: typed fields, and errors that name the file and the
// field's path in it ("tokenizer.json: pre_tokenizer.pretokenizers[1]: ...").
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace heptapod::hf {

class JsonNode {
 public:
  // The file's root object; `file` names it in errors.
  JsonNode(const nlohmann::json& root, std::string file);

  const nlohmann::json& json() const { return *j_; }
  // "FILE: PATH" (or the file alone at the root), the prefix of every error about this node.
  std::string where() const;
  [[noreturn]] void fail(const std::string& what) const;

  bool has(const char* key) const;  // present and not null
  JsonNode child(const char* key) const;  // required
  std::vector<JsonNode> items(const char* key) const;  // a required array
  std::string text(const char* key) const;  // a required string
  std::string text(const char* key, const std::string& fallback) const;
  bool boolean(const char* key, bool fallback) const;
  int integer(const char* key) const;  // a required integer 0 .. INT_MAX
  // The node's "type", for the components Hugging Face tells apart by it.
  std::string type() const { return text("type"); }
  // A refusal of this component: `component` "X" is not supported (supported: ...).
  [[noreturn]] void unsupported(const char* component, const std::string& type, const char* supported) const;

 private:
  JsonNode(const nlohmann::json& j, std::string file, std::string path);
  JsonNode at(const char* key) const;

  const nlohmann::json* j_;
  std::string file_, path_;
};

}  // namespace heptapod::hf
