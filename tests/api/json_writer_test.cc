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
