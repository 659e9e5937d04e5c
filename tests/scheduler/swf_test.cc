#include "scheduler/swf.h"

#include <sstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace schedemu {
namespace {

using ::testing::HasSubstr;

TEST(SwfTest, ParsesHeaderAndRecords) {
  absl::StatusOr<SwfTrace> trace = ParseSwf(
      "; Version: 2.2\n"
      ";   Computer: Test GPU cluster\n"
      "; MaxProcs: 32\n"
      "; a free-form note without a key\n"
      ";\n"
      "\n"
      "1 0 5 3600 8 -1 -1 8 7200 -1 1 3 1 -1 0 -1 -1 -1\n"
      "  2\t10   0 60 -1 -1 -1 2 120 -1 0 4 1 -1 1 2 -1 -1  \r\n");
  ASSERT_TRUE(trace.ok()) << trace.status();
  EXPECT_EQ(trace->header.Get("Version"), "2.2");
  EXPECT_EQ(trace->header.Get("computer"), "Test GPU cluster");
  EXPECT_EQ(trace->header.Get("MaxProcs"), "32");
  EXPECT_EQ(trace->header.Get("MaxNodes"), "");
  ASSERT_EQ(trace->header.comments.size(), 1u);
  EXPECT_EQ(trace->header.comments[0], "a free-form note without a key");
  ASSERT_EQ(trace->jobs.size(), 2u);
  const SwfJob& a = trace->jobs[0];
  EXPECT_EQ(a.job_number, 1);
  EXPECT_EQ(a.submit_time, 0);
  EXPECT_EQ(a.wait_time, 5);
  EXPECT_EQ(a.run_time, 3600);
  EXPECT_EQ(a.allocated_procs, 8);
  EXPECT_EQ(a.requested_procs, 8);
  EXPECT_EQ(a.requested_time, 7200);
  EXPECT_EQ(a.status, 1);
  EXPECT_EQ(a.user_id, 3);
  EXPECT_EQ(a.queue, 0);
  EXPECT_EQ(a.partition, -1);
  EXPECT_EQ(a.think_time, -1);
  const SwfJob& b = trace->jobs[1];
  EXPECT_EQ(b.job_number, 2);
  EXPECT_EQ(b.submit_time, 10);
  EXPECT_EQ(b.allocated_procs, -1);
  EXPECT_EQ(b.requested_procs, 2);
  EXPECT_EQ(b.Processors(), 2);  // requested when allocated is missing
  EXPECT_EQ(b.status, 0);
  EXPECT_EQ(b.partition, 2);
}

TEST(SwfTest, ProcessorsPrefersAllocated) {
  SwfJob j;
  EXPECT_EQ(j.Processors(), -1);
  j.requested_procs = 4;
  EXPECT_EQ(j.Processors(), 4);
  j.allocated_procs = 8;
  EXPECT_EQ(j.Processors(), 8);
  j.allocated_procs = 0;  // 0 counts as missing
  EXPECT_EQ(j.Processors(), 4);
}

TEST(SwfTest, DecimalFieldsAreRounded) {
  SwfJob j;
  ASSERT_TRUE(
      ParseSwfRecord("1 0.4 -1 3599.6 8 -1.0 -1 8 7200.00 -1 1 3 1 -1 0 -1 -1 -1", &j).ok());
  EXPECT_EQ(j.submit_time, 0);
  EXPECT_EQ(j.run_time, 3600);
  EXPECT_EQ(j.avg_cpu_time, -1);
  EXPECT_EQ(j.requested_time, 7200);
}

TEST(SwfTest, TooFewFieldsIsAnErrorWithTheLineNumber) {
  absl::StatusOr<SwfTrace> trace = ParseSwf("; MaxProcs: 8\n1 0 0 10 1 -1 -1 1 20\n");
  ASSERT_FALSE(trace.ok());
  EXPECT_EQ(trace.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(trace.status().message(), "line 2: expected 18 fields, got 9");
}

TEST(SwfTest, TooManyFieldsIsAnError) {
  SwfJob j;
  absl::Status s = ParseSwfRecord("1 0 0 10 1 -1 -1 1 20 -1 1 1 1 -1 0 -1 -1 -1 7", &j);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "expected 18 fields, got 19");
}

TEST(SwfTest, NonNumericFieldNamesTheField) {
  absl::StatusOr<SwfTrace> trace = ParseSwf("\n\n1 0 0 ten 1 -1 -1 1 20 -1 1 1 1 -1 0 -1 -1 -1\n");
  ASSERT_FALSE(trace.ok());
  EXPECT_EQ(trace.status().message(), "line 3: field 4 (run time): 'ten' is not a number");
}

TEST(SwfTest, FailedRecordLeavesTheOutputUntouched) {
  SwfJob j;
  j.job_number = 77;
  EXPECT_FALSE(ParseSwfRecord("1 2 3", &j).ok());
  EXPECT_EQ(j.job_number, 77);
}

TEST(SwfTest, EmptyTraceHasNoJobs) {
  absl::StatusOr<SwfTrace> trace = ParseSwf("; only a header\n\n");
  ASSERT_TRUE(trace.ok());
  EXPECT_TRUE(trace->jobs.empty());
  EXPECT_EQ(trace->header.comments.size(), 1u);
}

TEST(SwfTest, FormatRoundTrips) {
  SwfJob j;
  j.job_number = 12;
  j.submit_time = 3600;
  j.run_time = 42;
  j.allocated_procs = 16;
  j.requested_procs = 16;
  j.requested_time = 600;
  j.status = 1;
  j.user_id = 7;
  j.queue = 1;
  std::string line = FormatSwfRecord(j);
  EXPECT_EQ(line, "12 3600 -1 42 16 -1 -1 16 600 -1 1 7 -1 -1 1 -1 -1 -1");
  SwfJob back;
  ASSERT_TRUE(ParseSwfRecord(line, &back).ok());
  EXPECT_EQ(FormatSwfRecord(back), line);
}

TEST(SwfTest, ReaderStreamsAndCountsLines) {
  std::istringstream in(
      "; UnixStartTime: 1700000000\n"
      "1 0 -1 10 1 -1 -1 1 20 -1 1 1 1 -1 0 -1 -1 -1\n"
      "; late comment\n"
      "2 5 -1 10 1 -1 -1 1 20 -1 1 1 1 -1 0 -1 -1 -1\n");
  SwfReader reader(in);
  SwfJob j;
  absl::StatusOr<bool> more = reader.Next(&j);
  ASSERT_TRUE(more.ok());
  EXPECT_TRUE(*more);
  EXPECT_EQ(j.job_number, 1);
  EXPECT_EQ(reader.line_number(), 2);
  EXPECT_EQ(reader.header().Get("UnixStartTime"), "1700000000");
  more = reader.Next(&j);
  ASSERT_TRUE(more.ok());
  EXPECT_TRUE(*more);
  EXPECT_EQ(j.job_number, 2);
  EXPECT_EQ(reader.line_number(), 4);
  EXPECT_EQ(reader.header().comments.size(), 1u);
  more = reader.Next(&j);
  ASSERT_TRUE(more.ok());
  EXPECT_FALSE(*more);
}

}  // namespace
}  // namespace schedemu
