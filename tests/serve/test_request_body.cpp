// Request bodies to JSON (serve/request_body.h): multipart/form-data as RFC 7578 writes it (a preamble, quoted
// and escaped names, parameters without values, a part's own headers, any case of the media type) and every
// malformed multipart body a 400; URL-encoded forms beside them.
#include <gtest/gtest.h>

#include "heptapod/serve/request_body.h"
#include "test_process.h"

namespace heptapod {
namespace {

const std::string kType = "multipart/form-data; boundary=XyZ";

std::string part(const std::string& disposition, const std::string& content) {
  return "--XyZ\r\nContent-Disposition: " + disposition + "\r\nContent-Type: text/plain\r\n\r\n" + content + "\r\n";
}

TEST(RequestBody, MultipartFieldsInOrderWithRepeatsAndQuotedNames) {
  const std::string body = "a preamble to ignore\r\n" + part("form-data; name=\"q\"", "uno\r\ndos") +
                           part("form-data; foo; name=\"q\"", "tres") + part("form-data; name=source", "es") +
                           part("form-data; name=\"a \\\"b\\\"\"; filename=\"x.txt\"", "") + "--XyZ--\r\nepilogue";
  const auto fields = decode_multipart(body, kType);
  ASSERT_EQ(fields.size(), 4u);
  auto q = fields.equal_range("q");
  ASSERT_EQ(std::distance(q.first, q.second), 2);
  EXPECT_EQ(q.first->second, "uno\r\ndos");
  EXPECT_EQ(std::next(q.first)->second, "tres");
  EXPECT_EQ(fields.find("source")->second, "es");
  EXPECT_EQ(fields.count("a \"b\""), 1u);
  const nlohmann::json json = parse_body(body, "Multipart/Form-Data; Boundary=\"XyZ\"");
  EXPECT_EQ(json["q"], nlohmann::json::array({"uno\r\ndos", "tres"}));
  EXPECT_EQ(json["source"], "es");
}

TEST(RequestBody, MalformedMultipartIs400) {
  auto expect_400 = [](const std::string& body, const std::string& type, const std::string& part_of_message) {
    try {
      decode_multipart(body, type);
      ADD_FAILURE() << "accepted: " << body;
    } catch (const HttpError& e) {
      EXPECT_EQ(e.status, 400);
      EXPECT_HAS_SUBSTR(std::string(e.what()), part_of_message);
    }
  };
  const std::string good = part("form-data; name=\"q\"", "uno") + "--XyZ--\r\n";
  expect_400(good, "multipart/form-data", "malformed multipart");                    // no boundary
  expect_400(good, "multipart/form-data; boundary=Other", "malformed multipart");    // not found
  expect_400("x--XyZ\r\n\r\nuno\r\n--XyZ--", kType, "malformed multipart");          // delimiter mid-line
  expect_400(part("form-data; name=\"q\"", "uno"), kType, "malformed multipart");    // no close delimiter
  expect_400("--XyZ\r\nContent-Disposition: form-data; name=\"q\"\r\n--XyZ\r\n\r\nuno\r\n--XyZ--", kType,
             "malformed multipart");  // a part without the blank line before its content
  expect_400(part("form-data", "uno") + "--XyZ--", kType, "has no name");
  expect_400("--XyZ", kType, "malformed multipart");
  expect_400("", kType, "malformed multipart");
}

TEST(RequestBody, FormsAndJson) {
  EXPECT_EQ(parse_body("q=uno+dos&q=%C3%A9", "application/x-www-form-urlencoded; charset=UTF-8")["q"],
            nlohmann::json::array({"uno dos", "\xc3\xa9"}));
  EXPECT_EQ(parse_body("{\"q\": 1}", "")["q"], 1);
  EXPECT_EQ(media_type(" Text/Plain ; charset=x"), " text/plain");
}

}  // namespace
}  // namespace heptapod
