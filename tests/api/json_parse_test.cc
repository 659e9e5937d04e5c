// api/json_parse.h: the fast body parser builds exactly nlohmann's document (values, types,
// repeated keys) or declines, and the wrappers then answer as nlohmann itself (syntax errors
// included).
#include "api/json_parse.h"

#include <cmath>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/api/json_same_tree.h"

namespace schedemu::api {
namespace {

using jsontest::SameTree;
using nlohmann::json;

// Checks one text: the fast parser agrees with nlohmann whenever it accepts, and the wrappers
// always answer as nlohmann does.
void Check(const std::string& text) {
  SCOPED_TRACE(text);
  const json reference = json::parse(text, nullptr, false);
  const std::optional<json> fast = FastParseJson(text);
  if (fast) {
    ASSERT_FALSE(reference.is_discarded());
    EXPECT_TRUE(SameTree(*fast, reference)) << fast->dump() << " vs " << reference.dump();
  }
  const json wrapped = ParseJsonOrDiscarded(text);
  EXPECT_EQ(wrapped.is_discarded(), reference.is_discarded());
  if (!reference.is_discarded()) {
    EXPECT_TRUE(SameTree(wrapped, reference));
  }
  std::string thrown_fast, thrown_reference;
  try {
    const json parsed = ParseJsonOrThrow(text);
    EXPECT_FALSE(parsed.is_discarded());
  } catch (const json::exception& e) {  // parse_error, or out_of_range for an overflow
    thrown_fast = std::to_string(e.id) + e.what();
  }
  try {
    const json parsed = json::parse(text);
    EXPECT_FALSE(parsed.is_discarded());
  } catch (const json::exception& e) {
    thrown_reference = std::to_string(e.id) + e.what();
  }
  EXPECT_EQ(thrown_fast, thrown_reference);
}

TEST(JsonParseFastTest, AcceptsTheCommonShapesAsNlohmann) {
  const std::vector<std::string> texts = {
      R"({})",
      R"([])",
      R"( { "a" : 1 , "b" : [ true , false , null ] } )",
      "\t\r\n{\"a\":\"x\"}\n",
      R"({"job":{"script":"#!/bin/bash\nsleep 1\n","name":"a\"b\\c\/d\b\f\r\t","tasks":2}})",
      R"({"n":0,"m":-0,"k":-1,"u":123456789012345678,"v":-123456789012345678})",
      R"({"f":1.5,"g":-0.0,"h":1e3,"i":1E-3,"j":2.5e+10,"k":0.1,"l":1e-400})",
      R"({"a":1,"a":2,"b":{"c":1},"b":"last"})",
      R"({"z":1,"y":2,"x":3})",
      R"([[[[[]]]],{"":""}])",
      R"("just a string")",
      R"(42)",
      R"(true)",
      R"(null)",
      "\"\x7f\"",
  };
  for (const std::string& t : texts) {
    EXPECT_TRUE(FastParseJson(t).has_value()) << t;
    Check(t);
  }
}

TEST(JsonParseFastTest, DeclinesWhatNlohmannDecides) {
  const std::vector<std::string> texts = {
      "",
      " ",
      "{",
      "}",
      R"({"a":})",
      R"({"a":1,})",
      R"([1,])",
      R"({"a" 1})",
      R"({a:1})",
      R"({"a":1}x)",
      R"({"a":1} {})",
      R"({"a":01})",
      R"({"a":-})",
      R"({"a":1.})",
      R"({"a":.5})",
      R"({"a":1e})",
      R"({"a":+1})",
      R"({"a":1e400})",
      R"({"a":-1e400})",
      R"({"a":1234567890123456789})",
      R"({"a":18446744073709551615})",
      R"({"a":18446744073709551616})",
      R"({"a":-9223372036854775808})",
      R"({"a":-9223372036854775809})",
      R"({"a":"\u00e9"})",
      R"({"a":"\ud83d\ude00"})",
      R"({"a":"\ud83d"})",
      R"({"a":"\x"})",
      "{\"a\":\"caf\xc3\xa9\"}",
      "{\"a\":\"\xff\"}",
      "{\"a\":\"tab\there\"}",
      std::string("{\"a\":\"nul\0\"}", 12),
      "\xef\xbb\xbf{}",
      R"({"a":tru})",
      R"({"a":nul})",
      R"({"a":falsey})",
      R"(// comment
{})",
      R"({"a":"unterminated)",
      R"(["a" "b"])",
      std::string(300, '[') + std::string(300, ']'),
  };
  for (const std::string& t : texts) Check(t);
  EXPECT_FALSE(FastParseJson(R"({"a":"\u00e9"})").has_value());
  EXPECT_FALSE(FastParseJson(std::string(300, '[') + std::string(300, ']')).has_value());
}

// Random documents written with random spacing, then random byte edits of them: whatever the
// fast parser accepts is nlohmann's document, and the wrappers answer as nlohmann.
TEST(JsonParseFastTest, RandomDocumentsAndMutationsAgreeWithNlohmann) {
  std::mt19937 rng(19);
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  const std::vector<std::string> atoms = {"0",
                                          "-0",
                                          "7",
                                          "-12",
                                          "3.25",
                                          "-0.5",
                                          "1e5",
                                          "2E-2",
                                          "true",
                                          "false",
                                          "null",
                                          "\"\"",
                                          "\"a\"",
                                          "\"a\\nb\"",
                                          "\"q\\\"\"",
                                          "\"\\/\"",
                                          "99999999999999999",
                                          "1.0",
                                          "-1e-5",
                                          "\"x y\"",
                                          "\"\\u0041\"",
                                          "123456789012345678901"};
  const std::vector<std::string> spaces = {"", " ", "\n", "\t", "\r\n  "};
  std::function<std::string(int)> gen = [&](int depth) -> std::string {
    const int kind = depth > 4 ? 0 : pick(4);
    auto sp = [&] { return spaces[pick(static_cast<int>(spaces.size()))]; };
    if (kind <= 1) return atoms[pick(static_cast<int>(atoms.size()))];
    std::string out;
    const int n = pick(4);
    if (kind == 2) {
      out = "[" + sp();
      for (int i = 0; i < n; ++i) out += (i ? "," + sp() : "") + gen(depth + 1) + sp();
      return out + "]";
    }
    out = "{" + sp();
    for (int i = 0; i < n; ++i) {
      out += (i ? "," + sp() : "") + "\"k" + std::to_string(pick(3)) + "\"" + sp() + ":" + sp() +
             gen(depth + 1) + sp();
    }
    return out + "}";
  };
  const std::string edits = "{}[],:\"\\ 0-.eE+atfnu\x01\x80";
  for (int round = 0; round < 3000; ++round) {
    std::string text = gen(0);
    Check(text);
    for (int m = 0; m < 2 && !text.empty(); ++m) {
      const size_t at = static_cast<size_t>(pick(static_cast<int>(text.size())));
      switch (pick(3)) {
        case 0:
          text[at] = edits[static_cast<size_t>(pick(static_cast<int>(edits.size())))];
          break;
        case 1:
          text.erase(at, 1);
          break;
        default:
          text.insert(at, 1, edits[static_cast<size_t>(pick(static_cast<int>(edits.size())))]);
      }
      Check(text);
    }
  }
}

}  // namespace
}  // namespace schedemu::api
