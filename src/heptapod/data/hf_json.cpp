// Typed fields of tokenizer.json nodes, with the field's path in every error.
#include "heptapod/data/hf_json.h"

#include <climits>

#include "heptapod/core/error.h"

namespace heptapod::hf {

JsonNode::JsonNode(const nlohmann::json& root, std::string file) : j_(&root), file_(std::move(file)) {
  require(root.is_object(), file_ + ": not a JSON object");
}

JsonNode::JsonNode(const nlohmann::json& j, std::string file, std::string path)
    : j_(&j), file_(std::move(file)), path_(std::move(path)) {}

std::string JsonNode::where() const { return path_.empty() ? file_ : file_ + ": " + path_; }

void JsonNode::fail(const std::string& what) const { throw Error(where() + ": " + what); }

bool JsonNode::has(const char* key) const { return j_->is_object() && j_->contains(key) && !(*j_)[key].is_null(); }

JsonNode JsonNode::at(const char* key) const {
  return JsonNode((*j_)[key], file_, path_.empty() ? std::string(key) : path_ + "." + key);
}

JsonNode JsonNode::child(const char* key) const {
  if (!j_->is_object()) fail("must be a JSON object");
  if (!has(key)) fail("missing \"" + std::string(key) + "\"");
  return at(key);
}

std::vector<JsonNode> JsonNode::items(const char* key) const {
  const JsonNode list = child(key);
  if (!list.j_->is_array()) list.fail("must be a list");
  std::vector<JsonNode> out;
  out.reserve(list.j_->size());
  for (std::size_t i = 0; i < list.j_->size(); ++i)
    out.push_back(JsonNode((*list.j_)[i], file_, list.path_ + "[" + std::to_string(i) + "]"));
  return out;
}

std::string JsonNode::text(const char* key) const {
  const JsonNode v = child(key);
  if (!v.j_->is_string()) v.fail("must be a string");
  return v.j_->get<std::string>();
}

std::string JsonNode::text(const char* key, const std::string& fallback) const {
  return has(key) ? text(key) : fallback;
}

bool JsonNode::boolean(const char* key, bool fallback) const {
  if (!has(key)) return fallback;
  const JsonNode v = at(key);
  if (!v.j_->is_boolean()) v.fail("must be true or false");
  return v.j_->get<bool>();
}

int JsonNode::integer(const char* key) const {
  const JsonNode v = child(key);
  if (!v.j_->is_number_integer() || v.j_->get<long long>() < 0 || v.j_->get<long long>() > INT_MAX)
    v.fail("must be an integer from 0 to " + std::to_string(INT_MAX));
  return v.j_->get<int>();
}

void JsonNode::unsupported(const char* component, const std::string& type, const char* supported) const {
  fail(std::string(component) + " type \"" + type + "\" is not supported (supported: " + supported + ")");
}

}  // namespace heptapod::hf
