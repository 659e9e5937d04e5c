#include "api/json_writer.h"

#include <random>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace schedemu::api {
namespace {

using nlohmann::json;

std::string NlohmannDump(const json& j) {
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string Escaped(std::string_view s) {
  std::string out;
  AppendJsonString(out, s);
  return out;
}

TEST(JsonWriterTest, StringsMatchNlohmannOnPlainEscapedAndInvalidUtf8) {
  for (std::string s : {std::string(""), std::string("plain /path-%j.out"), std::string("q\"b\\s"),
                        std::string("tab\there\nnl\x01\x1f\x7f"), std::string("привет"),
                        std::string("bad \xff\xfe utf8 \xc3"), std::string("\xe2\x82")}) {
    EXPECT_EQ(Escaped(s), NlohmannDump(s)) << s;
  }
}

TEST(JsonWriterTest, RandomBytesMatchNlohmann) {
  std::mt19937 rng(42);
  for (int i = 0; i < 5000; ++i) {
    std::string s(rng() % 24, '\0');
    // Mostly ASCII with some high bytes and control characters.
    for (char& c : s) c = static_cast<char>(rng() % 4 == 0 ? rng() % 256 : 0x20 + rng() % 95);
    ASSERT_EQ(Escaped(s), NlohmannDump(s)) << i;
  }
}

// Every ASCII byte alone and in random ASCII texts with quotes, backslashes and control
// characters (the escaped JSON answers of the Vertex envelope): escaped here, not by nlohmann,
// with the same bytes.
TEST(JsonWriterTest, AsciiWithEscapesMatchesNlohmann) {
  for (int c = 0; c < 0x80; ++c) {
    const std::string s = "a" + std::string(1, static_cast<char>(c)) + "b";
    ASSERT_EQ(Escaped(s), NlohmannDump(s)) << c;
    ASSERT_EQ(Escaped(s.substr(1, 1)), NlohmannDump(s.substr(1, 1))) << c;
  }
  std::mt19937 rng(43);
  const std::string specials = "\"\\/\b\f\n\r\t\x01\x1f\x7f{}:,";
  for (int i = 0; i < 5000; ++i) {
    std::string s(rng() % 64, '\0');
    for (char& c : s) {
      c = rng() % 3 == 0 ? specials[rng() % specials.size()] : static_cast<char>(rng() % 128);
    }
    ASSERT_EQ(Escaped(s), NlohmannDump(s)) << i;
  }
  const std::string doc = R"({"jobs":[{"name":"a\"b","script":"#!/bin/bash\nsleep 1"}]})";
  EXPECT_EQ(Escaped(doc), NlohmannDump(doc));
}

TEST(JsonWriterTest, NestedDocumentParsesToTheSameValue) {
  std::string out;
  JsonWriter w(out);
  w.BeginObject();
  w.Field("a", 1).Field("b", "x").Field("c", true).Field("d", int64_t{-9007199254740993});
  w.Key("e").BeginArray().Int(1).BeginObject().EndObject().EmptyArray().String("s").EndArray();
  w.Key("f").BeginObject().Key("g").Raw("{\"h\":[1,2]}").Field("i", false).EndObject();
  w.Key("j").EmptyObject();
  w.EndObject();
  EXPECT_EQ(out,
            "{\"a\":1,\"b\":\"x\",\"c\":true,\"d\":-9007199254740993,\"e\":[1,{},[],\"s\"],"
            "\"f\":{\"g\":{\"h\":[1,2]},\"i\":false},\"j\":{}}");
  json parsed = json::parse(out);
  EXPECT_EQ(parsed["d"].get<int64_t>(), -9007199254740993);
  EXPECT_EQ(parsed["f"]["g"]["h"][1], 2);
}

TEST(JsonWriterTest, ConsecutiveTopLevelValuesAreCommaSeparated) {
  std::string out;
  JsonWriter w(out);
  w.BeginObject().EndObject();
  w.BeginObject().Field("k", 0).EndObject();
  EXPECT_EQ(out, "{},{\"k\":0}");
}

}  // namespace
}  // namespace schedemu::api
