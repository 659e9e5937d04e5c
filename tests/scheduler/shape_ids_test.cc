// ShapeIds (scheduler/shape_ids.h): the numbering of limit-less shapes and of (shape, limit)
// keys the backfill walk keys its tables by, and what a copy (a world snapshot) keeps of it.
#include "scheduler/shape_ids.h"

#include "gtest/gtest.h"

namespace schedemu::testing {
namespace shape_ids_test {

Shape S(int workers, int gpus, int rank = 0) {
  return Shape{.pool = 3, .workers = workers, .gpus = gpus, .cpus = 16, .rank = rank};
}

TEST(ShapeIds, NumbersEachDistinctShapeOnceFromOne) {
  ShapeIds ids;
  EXPECT_EQ(ids.size(), 0u);
  EXPECT_EQ(ids.Intern(S(1, 8)), 1u);
  EXPECT_EQ(ids.Intern(S(2, 8)), 2u);
  EXPECT_EQ(ids.Intern(S(1, 8)), 1u);
  EXPECT_EQ(ids.Intern(S(1, 8, 5)), 3u) << "the rank is part of the shape";
  Shape other_type = S(1, 8);
  other_type.itype = 7;
  EXPECT_EQ(ids.Intern(other_type), 4u);
  EXPECT_EQ(ids.size(), 4u);
  EXPECT_EQ(ids.Of(1), S(1, 8));
  EXPECT_EQ(ids.Of(2), S(2, 8));
  EXPECT_EQ(ids.Of(3), S(1, 8, 5));
  EXPECT_EQ(ids.Of(4), other_type);
}

TEST(ShapeIds, ACopyKeepsTheNumbersUnderANewNameAndNumbersOnAlone) {
  ShapeIds a;
  a.Intern(S(1, 8));
  ShapeIds b = a;
  EXPECT_NE(a.uid(), b.uid());
  EXPECT_EQ(b.Intern(S(1, 8)), 1u);
  // After the copy each numbers its new shapes on its own: one number, two shapes.
  EXPECT_EQ(a.Intern(S(2, 8)), 2u);
  EXPECT_EQ(b.Intern(S(4, 8)), 2u);
  EXPECT_EQ(a.Of(2), S(2, 8));
  EXPECT_EQ(b.Of(2), S(4, 8));
  ShapeIds c;
  const uint64_t before = c.uid();
  c = a;
  EXPECT_NE(c.uid(), before);
  EXPECT_NE(c.uid(), a.uid());
  EXPECT_EQ(c.Of(2), S(2, 8));
}

TEST(ShapeIds, NumbersEachShapeAndLimitKeyOnceFromOne) {
  ShapeIds ids;
  EXPECT_EQ(ids.keys(), 0u);
  const uint32_t a = ids.Intern(S(1, 8));
  EXPECT_EQ(ids.keys(), 1u) << "a shape is numbered with its limit-0 key";
  EXPECT_EQ(ids.ZeroKey(a), 1u);
  EXPECT_EQ(ids.InternKey(a, 0), 1u);
  EXPECT_EQ(ids.InternKey(a, 3'600'000), 2u);
  EXPECT_EQ(ids.InternKey(a, 3'600'000), 2u);
  const uint32_t b = ids.Intern(S(2, 8));
  EXPECT_EQ(ids.ZeroKey(b), 3u);
  EXPECT_EQ(ids.InternKey(b, 3'600'000), 4u) << "one limit, two shapes: two keys";
  EXPECT_EQ(ids.InternKey(a, 7'200'000), 5u);
  EXPECT_EQ(ids.Intern(S(1, 8)), a);
  EXPECT_EQ(ids.keys(), 5u) << "interning a known shape numbers no key";
}

TEST(ShapeIds, ACopyKeepsTheKeyNumbers) {
  ShapeIds a;
  const uint32_t s = a.Intern(S(1, 8));
  const uint32_t k = a.InternKey(s, 60'000);
  ShapeIds b = a;
  EXPECT_EQ(b.InternKey(s, 60'000), k);
  EXPECT_EQ(b.ZeroKey(s), a.ZeroKey(s));
  EXPECT_EQ(a.InternKey(s, 120'000), 3u);
  EXPECT_EQ(b.InternKey(s, 180'000), 3u) << "each numbers its new keys on its own";
  ShapeIds c;
  c = b;
  EXPECT_EQ(c.InternKey(s, 180'000), 3u);
  EXPECT_EQ(c.keys(), 3u);
}

}  // namespace shape_ids_test
}  // namespace schedemu::testing
