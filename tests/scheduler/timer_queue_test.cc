// The timer queue (scheduler/timers.h) is a binary heap: it fires timers in (time, seq) order, the
// order of the std::set it replaced, under any interleaving of adds, pops and burials of inert
// timers with equal times; the
// world image writes its timers in that order (the set's bytes), and a queue read back from an
// image in any order fires in that order too. A world restored from an image writes the same
// bytes and runs on as the original.
#include <algorithm>
#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "scheduler/timers.h"
#include "scheduler/world_image.h"
#include "tests/scheduler/test_world.h"

namespace schedemu::testing {
namespace timer_queue_test {

bool SameEvent(const TimedEvent& a, const TimedEvent& b) {
  return a.time == b.time && a.seq == b.seq && a.kind == b.kind && a.job == b.job &&
         a.generation == b.generation;
}

TEST(TimerQueue, FiresInTimeThenSeqOrderAsTheSetDid) {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 20; ++round) {
    TimerQueue q;
    std::set<TimedEvent> ref;
    int64_t seq = 1;
    int64_t purges = 0;
    for (int step = 0; step < 2000; ++step) {
      if (rng() % 3 != 0 || ref.empty()) {
        // Few distinct times: many ties, broken by seq (the add order).
        const TimeMs t = static_cast<TimeMs>(rng() % 50);
        const TimerKind kind = rng() % 4 == 0 ? TimerKind::kPurge : TimerKind::kRunEnd;
        const JobId job = rng() % 100;
        q.Add(t, kind, job, step);
        ref.insert(TimedEvent{t, seq++, kind, job, static_cast<uint64_t>(step)});
        if (kind == TimerKind::kPurge) ++purges;
      } else if (step % 97 == 0) {
        // Burying (any subset but purges) moves timers, not their order.
        q.Bury([](const TimedEvent& e) { return e.kind != TimerKind::kPurge && e.job % 3 == 0; });
      } else {
        ASSERT_EQ(q.NextTime(), ref.begin()->time);
        const TimedEvent got = q.PopFront();
        ASSERT_TRUE(SameEvent(got, *ref.begin())) << "round " << round << " step " << step;
        if (got.kind == TimerKind::kPurge) --purges;
        ref.erase(ref.begin());
      }
      ASSERT_EQ(q.size(), ref.size());
      ASSERT_EQ(q.HasNonPurge(), static_cast<int64_t>(ref.size()) > purges);
    }
    while (!ref.empty()) {
      ASSERT_TRUE(SameEvent(q.PopFront(), *ref.begin()));
      ref.erase(ref.begin());
    }
    EXPECT_TRUE(q.empty());
    EXPECT_EQ(q.NextTime(), kNever);
  }
}

TEST(TimerQueue, NeverAddsNothing) {
  TimerQueue q;
  q.Add(kNever, TimerKind::kRunEnd, 1, 0);
  EXPECT_TRUE(q.empty());
  EXPECT_FALSE(q.HasNonPurge());
}

// What ImageFields hands the archive, in its order.
struct CaptureWriter {
  static constexpr bool kReading = false;
  std::vector<TimedEvent> timers;
  int64_t next_seq = 0, purges = 0;
  void operator()(const std::vector<TimedEvent>& t, int64_t n, int64_t p) {
    timers = t;
    next_seq = n;
    purges = p;
  }
};
struct FeedReader {
  static constexpr bool kReading = true;
  std::vector<TimedEvent> timers;
  int64_t next_seq = 0, purges = 0;
  void operator()(std::vector<TimedEvent>& t, int64_t& n, int64_t& p) {
    t = timers;
    n = next_seq;
    p = purges;
  }
};

TEST(TimerQueue, TheImageWritesTheTimersInFiringOrder) {
  std::mt19937_64 rng(3);
  TimerQueue q;
  std::set<TimedEvent> ref;
  for (int i = 1; i <= 500; ++i) {
    const TimeMs t = static_cast<TimeMs>(rng() % 40);
    q.Add(t, TimerKind::kPurge, i, 0);
    ref.insert(TimedEvent{t, i, TimerKind::kPurge, static_cast<JobId>(i), 0});
  }
  for (int i = 0; i < 100; ++i) {
    q.PopFront();
    ref.erase(ref.begin());
  }
  CaptureWriter w;
  q.ImageFields(w);
  ASSERT_EQ(w.timers.size(), ref.size());
  EXPECT_TRUE(std::equal(w.timers.begin(), w.timers.end(), ref.begin(), SameEvent));
  EXPECT_EQ(w.next_seq, 501);
  EXPECT_EQ(w.purges, 400);

  // Read back (shuffled: a reader need not trust the order), it fires in the same order.
  FeedReader r{w.timers, w.next_seq, w.purges};
  std::shuffle(r.timers.begin(), r.timers.end(), rng);
  TimerQueue back;
  back.ImageFields(r);
  for (const TimedEvent& e : ref) ASSERT_TRUE(SameEvent(back.PopFront(), e));
  EXPECT_TRUE(back.empty());
  back.Add(5, TimerKind::kRunEnd, 9, 0);  // seq continues from the image's
  EXPECT_EQ(back.PopFront().seq, 501);
}

TEST(TimerQueue, BuriedTimersStayInTheImageAndItsPurgeCount) {
  TimerQueue q;
  for (int i = 1; i <= 40; ++i) {
    q.Add(100 - i, i % 4 == 0 ? TimerKind::kPurge : TimerKind::kRunEnd, i, 0);
  }
  CaptureWriter before;
  q.ImageFields(before);
  EXPECT_FALSE(q.WantsBurial());  // below the floor
  q.Bury([](const TimedEvent& e) { return e.kind == TimerKind::kRunEnd && e.job % 2 == 1; });
  EXPECT_EQ(q.buried(), 20u);
  EXPECT_EQ(q.size(), 40u);
  CaptureWriter after;
  q.ImageFields(after);
  ASSERT_EQ(after.timers.size(), before.timers.size());
  EXPECT_TRUE(
      std::equal(after.timers.begin(), after.timers.end(), before.timers.begin(), SameEvent));
  EXPECT_EQ(after.purges, 10);
  // Read back, everything is live again and fires in the same order.
  FeedReader r{after.timers, after.next_seq, after.purges};
  TimerQueue back;
  back.ImageFields(r);
  EXPECT_EQ(back.buried(), 0u);
  for (const TimedEvent& e : before.timers) {
    ASSERT_TRUE(SameEvent(q.PopFront(), e));
    ASSERT_TRUE(SameEvent(back.PopFront(), e));
  }
  EXPECT_TRUE(q.empty());
  EXPECT_FALSE(q.HasNonPurge());
}

// Runs `w` and its `copy` until idle: they write the same image and log the same events.
void RunBothAndCompare(World& w, World& copy) {
  w.RunUntilIdle(FromSeconds(86400), INT64_MAX);
  copy.RunUntilIdle(FromSeconds(86400), INT64_MAX);
  EXPECT_EQ(WorldImage::Encode(copy, false), WorldImage::Encode(w, false));
  ASSERT_EQ(copy.events().size(), w.events().size());
  for (size_t i = 0; i < w.events().size(); ++i) {
    EXPECT_EQ(copy.events()[i].kind, w.events()[i].kind) << i;
    EXPECT_EQ(copy.events()[i].time, w.events()[i].time) << i;
    EXPECT_EQ(copy.events()[i].job, w.events()[i].job) << i;
  }
}

// A world past the burial floor (1,280 runs) whose preemptions leave 800 run ends that can no
// longer do anything buries them, and runs on as a copy decoded from its image then, which holds
// every timer in one heap: the same image bytes and the same events. (Burial moves timers, it
// never drops one: the queue tests above check the order.)
TEST(TimerQueue, AWorldBuriesPreemptedRunEndsAndRunsAsItsCopy) {
  World w = MakeWorld(SlurmConfig(160));
  for (int i = 0; i < 1280; ++i) {
    MustSubmit(w, SlurmJob("alice", "spot", 1, 1, FromSeconds(3600 + 7 * i)));
  }
  ASSERT_TRUE(w.AdvanceTo(w.now() + FromSeconds(10)).ok());
  for (int i = 0; i < 100; ++i) MustSubmit(w, SlurmJob("bob", "batch", 1, 8, FromSeconds(600)));
  ASSERT_TRUE(w.AdvanceTo(w.now() + FromSeconds(30)).ok());
  EXPECT_EQ(w.counters().preemptions, 800);
  EXPECT_EQ(w.work().timers_buried, 800);  // the preempted runs' ends, nothing live
  const std::string image = WorldImage::Encode(w, false);
  absl::StatusOr<World> copy = WorldImage::Decode(image, {});
  ASSERT_TRUE(copy.ok()) << copy.status();
  EXPECT_EQ(WorldImage::Encode(*copy, false), image);
  EXPECT_EQ(copy->work().timers_buried, 0);
  RunBothAndCompare(w, *copy);
  EXPECT_GT(w.events().size(), 4000u);
}

// Jobs whose run ends are added out of time order: the image is the same after a round trip, and
// the restored world fires them as the original does.
TEST(TimerQueue, ARestoredWorldWritesTheSameImageAndRunsTheSame) {
  World w = MakeWorld(SlurmConfig(4));
  const int64_t runtimes[] = {900, 60, 3000, 60, 420, 1800, 5, 700, 60, 2400};
  for (int64_t s : runtimes) MustSubmit(w, SlurmJob("alice", "spot", 1, 2, FromSeconds(s)));
  ASSERT_TRUE(w.AdvanceTo(w.now() + FromSeconds(10)).ok());
  MustSubmit(w, SlurmJob("bob", "high", 4, 8, FromSeconds(100)));  // preempts: stale run ends
  ASSERT_TRUE(w.AdvanceTo(w.now() + FromSeconds(30)).ok());
  const std::string image = WorldImage::Encode(w, false);
  absl::StatusOr<World> back = WorldImage::Decode(image, {});
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(WorldImage::Encode(*back, false), image);
  RunBothAndCompare(w, *back);
  EXPECT_GT(w.counters().preemptions, 0);
}

}  // namespace timer_queue_test
}  // namespace schedemu::testing
