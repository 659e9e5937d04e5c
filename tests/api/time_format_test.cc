// The RFC 3339 helpers of api/time_format.h: Cloud.ru's whole-second form and lenient reader, the
// control API's and scenario files' millisecond form and strict reader.
#include "api/time_format.h"

#include <gtest/gtest.h>

namespace schedemu::api {
namespace {

// Cloud.ru's forms (moved from cloudru_handlers_test.cc with the functions they test).
TEST(CloudRuTime, Rfc3339RoundTrip) {
  EXPECT_EQ(FormatRfc3339Seconds(FromSeconds(1767225600)), "2026-01-01T00:00:00Z");
  EXPECT_EQ(FormatRfc3339Seconds(FromSeconds(1767225600 + 86399)), "2026-01-01T23:59:59Z");
  EXPECT_EQ(FormatRfc3339Seconds(FromSeconds(951782400)), "2000-02-29T00:00:00Z");
  EXPECT_EQ(ParseRfc3339Lenient("2026-01-01T00:00:00Z"), FromSeconds(1767225600));
  EXPECT_EQ(ParseRfc3339Lenient("2026-01-01T03:00:00+03:00"), FromSeconds(1767225600));
  EXPECT_EQ(ParseRfc3339Lenient("2026-01-01T00:00:00.250Z"), FromSeconds(1767225600) + 250);
  EXPECT_EQ(ParseRfc3339Lenient("2026-01-01"), FromSeconds(1767225600));
  EXPECT_FALSE(ParseRfc3339Lenient("yesterday").has_value());
  EXPECT_FALSE(ParseRfc3339Lenient("2026-13-01T00:00:00Z").has_value());
  EXPECT_FALSE(ParseRfc3339Lenient("2026-01-01T00:00:00Zjunk").has_value());
}

TEST(TimeFormat, SecondsDropMillisecondsMillisKeepThem) {
  const TimeMs t = FromSeconds(1767225605) + 123;
  EXPECT_EQ(FormatRfc3339Seconds(t), "2026-01-01T00:00:05Z");
  EXPECT_EQ(FormatRfc3339Millis(t), "2026-01-01T00:00:05.123Z");
  EXPECT_EQ(FormatRfc3339Millis(FromSeconds(1767225605)), "2026-01-01T00:00:05Z");
  EXPECT_EQ(FormatRfc3339Seconds(-500), "1969-12-31T23:59:59Z");
  EXPECT_EQ(FormatRfc3339Millis(-500), "1969-12-31T23:59:59.500Z");
}

TEST(TimeFormat, StrictReaderWantsTimeAndZone) {
  EXPECT_EQ(ParseRfc3339Strict("2026-01-01T00:00:05.123Z"), FromSeconds(1767225605) + 123);
  EXPECT_EQ(ParseRfc3339Strict("2026-01-01T03:00:00+03:00"), FromSeconds(1767225600));
  EXPECT_FALSE(ParseRfc3339Strict("2026-01-01").has_value());
  EXPECT_FALSE(ParseRfc3339Strict("2026-01-01T00:00:00").has_value());
  EXPECT_FALSE(ParseRfc3339Strict("yesterday").has_value());
  EXPECT_EQ(ParseRfc3339Strict(FormatRfc3339Millis(FromSeconds(1767225605) + 7)),
            FromSeconds(1767225605) + 7);
}

}  // namespace
}  // namespace schedemu::api
