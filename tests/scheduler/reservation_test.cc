// Slurm advance reservations (scheduler/reservations.cc): placement inside and outside, users and
// accounts, the flags, start/end timers, backfill around a future reservation, pending reasons.
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/scheduler/test_world.h"

namespace schedemu::testing {
namespace {

ReservationConfig Resv(std::string name, std::vector<std::string> nodes, TimeMs start = 0,
                       TimeMs end = kNever, uint32_t flags = 0) {
  ReservationConfig r;
  r.name = std::move(name);
  r.nodes = std::move(nodes);
  r.start = start;
  r.end = end;
  r.users = {"alice"};
  r.flags = flags;
  return r;
}

JobRequest InResv(JobRequest r, std::string reservation) {
  r.reservation = std::move(reservation);
  return r;
}

std::vector<std::string> EventKinds(const World& w) {
  std::vector<std::string> out;
  for (const Event& e : w.events()) {
    if (std::string(EventKindName(e.kind)).starts_with("reservation")) {
      out.push_back(std::string(EventKindName(e.kind)) + ":" + e.subject);
    }
  }
  return out;
}

TEST(Reservations, JobsNamingItRunInsideOthersStayOut) {
  WorldConfig c = SlurmConfig(4);
  c.clusters[0].reservations.push_back(Resv("train", {"n3", "n4"}));
  World w = MakeWorld(c);
  ASSERT_NE(w.FindReservation(0, "train"), nullptr);
  EXPECT_TRUE(w.FindReservation(0, "train")->active);
  // Outside: only n1, n2 are usable.
  JobId out = MustSubmit(w, SlurmJob("bob", "spot", 2, 8));
  JobId in = MustSubmit(w, InResv(SlurmJob("alice", "spot", 2, 8), "train"));
  Advance(w, 0);
  EXPECT_EQ(w.PlacementString(J(w, out)), "n[1-2]");
  EXPECT_EQ(w.PlacementString(J(w, in)), "n[3-4]");
  // Another job naming it waits for the reservation's nodes (Resources), although n1/n2 will
  // free up first: it never runs outside.
  JobId more = MustSubmit(w, InResv(SlurmJob("alice", "spot", 1, 8), "train"));
  Advance(w, 0);
  EXPECT_EQ(J(w, more).state, JobState::kPending);
  EXPECT_EQ(J(w, more).reason, "Resources");
}

TEST(Reservations, OthersWaitWithReasonReservation) {
  WorldConfig c = SlurmConfig(2);
  c.clusters[0].reservations.push_back(Resv("train", {"n2"}));
  World w = MakeWorld(c);
  JobId a = SubmitAndSchedule(w, SlurmJob("bob", "spot", 1, 8));
  EXPECT_EQ(w.PlacementString(J(w, a)), "n1");
  JobId b = SubmitAndSchedule(w, SlurmJob("bob", "spot", 1, 8));
  EXPECT_EQ(J(w, b).state, JobState::kPending);
  EXPECT_EQ(J(w, b).reason, "Reservation");
  // A job that does not fit even without the reservation waits for Resources.
  JobId big = SubmitAndSchedule(w, SlurmJob("bob", "spot", 2, 8));
  EXPECT_EQ(J(w, big).reason, "Resources");
}

TEST(Reservations, MaintReasonAndOverlap) {
  WorldConfig c = SlurmConfig(2);
  c.clusters[0].reservations.push_back(Resv("train", {"n2"}));
  c.clusters[0].reservations.push_back(Resv("maint", {"n1", "n2"}, 0, kNever, kResvMaint));
  World w = MakeWorld(c);  // MAINT may overlap "train"
  JobId b = SubmitAndSchedule(w, SlurmJob("bob", "spot", 1, 8));
  EXPECT_EQ(J(w, b).state, JobState::kPending);
  EXPECT_EQ(J(w, b).reason, "ReqNodeNotAvail, Reserved for maintenance");
  // Without OVERLAP (or MAINT), overlapping is refused; with OVERLAP it is accepted.
  absl::Status s = w.CreateReservation(0, Resv("other", {"n1"}));
  EXPECT_EQ(ReasonOf(s), Reason::kReservationOverlap);
  EXPECT_TRUE(w.CreateReservation(0, Resv("other", {"n1"}, 0, kNever, kResvOverlap)).ok());
  // A reservation later than the others does not overlap them.
  WorldConfig c2 = SlurmConfig(2);
  c2.clusters[0].reservations.push_back(Resv("a", {"n1"}, kT0, kT0 + FromSeconds(100)));
  c2.clusters[0].reservations.push_back(
      Resv("b", {"n1"}, kT0 + FromSeconds(100), kT0 + FromSeconds(200)));
  EXPECT_TRUE(World::Create(c2).ok());
}

TEST(Reservations, UsersAndAccounts) {
  WorldConfig c = SlurmConfig(2);
  c.clusters[0].users.push_back({"carol", 1002, 1002, "ml", {}, "None"});
  ReservationConfig r = Resv("train", {"n2"});
  r.accounts = {"ml"};
  c.clusters[0].reservations.push_back(r);
  World w = MakeWorld(c);
  // alice is a user of it; carol's default account is one of its accounts; bob is neither.
  EXPECT_TRUE(w.SubmitSlurmJob(InResv(SlurmJob("alice", "spot", 1, 8), "train")).ok());
  EXPECT_TRUE(w.SubmitSlurmJob(InResv(SlurmJob("carol", "spot", 1, 8), "train")).ok());
  absl::StatusOr<JobId> denied = w.SubmitSlurmJob(InResv(SlurmJob("bob", "spot", 1, 8), "train"));
  ASSERT_FALSE(denied.ok());
  EXPECT_EQ(ReasonOf(denied.status()), Reason::kReservationAccess);
  JobRequest bob_ml = InResv(SlurmJob("bob", "spot", 1, 8), "train");
  bob_ml.account = "ml";  // an account given in the submit counts
  EXPECT_TRUE(w.SubmitSlurmJob(bob_ml).ok());
  absl::StatusOr<JobId> unknown = w.SubmitSlurmJob(InResv(SlurmJob("alice", "spot", 1, 8), "x"));
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(ReasonOf(unknown.status()), Reason::kReservationInvalid);
  EXPECT_EQ(ReasonOf(w.CreateReservation(0, Resv("train", {"n1"}))), Reason::kReservationInvalid);
}

TEST(Reservations, TimersStartAndEnd) {
  WorldConfig c = SlurmConfig(2);
  c.clusters[0].reservations.push_back(
      Resv("later", {"n2"}, kT0 + FromSeconds(100), kT0 + FromSeconds(200)));
  World w = MakeWorld(c);
  EXPECT_FALSE(w.FindReservation(0, "later")->active);
  JobId early = SubmitAndSchedule(w, InResv(SlurmJob("alice", "spot", 1, 8), "later"));
  EXPECT_EQ(J(w, early).state, JobState::kPending);
  EXPECT_EQ(J(w, early).reason, "Reservation");
  Advance(w, FromSeconds(100));
  EXPECT_TRUE(w.FindReservation(0, "later")->active);
  EXPECT_EQ(J(w, early).state, JobState::kRunning);
  EXPECT_EQ(w.PlacementString(J(w, early)), "n2");
  Advance(w, FromSeconds(100));
  EXPECT_EQ(w.FindReservation(0, "later"), nullptr);  // ended: removed
  EXPECT_THAT(EventKinds(w),
              ::testing::ElementsAre("reservation_created:later", "reservation_started:later",
                                     "reservation_ended:later"));
  // A job naming a reservation that is gone waits for ever.
  ASSERT_TRUE(w.CreateReservation(0, Resv("gone", {"n1"}, 0, kNever, kResvIgnoreJobs)).ok());
  JobId orphan = MustSubmit(w, InResv(SlurmJob("alice", "spot", 1, 8), "gone"));
  ASSERT_TRUE(w.DeleteReservation(0, "gone").ok());
  Advance(w, 0);
  EXPECT_EQ(J(w, orphan).reason, "ReservationDeleted");
  EXPECT_EQ(ReasonOf(w.DeleteReservation(0, "gone")), Reason::kReservationInvalid);
}

TEST(Reservations, BackfillPlansAroundAFutureReservation) {
  WorldConfig c = SlurmConfig(2);
  c.clusters[0].reservations.push_back(
      Resv("soon", {"n2"}, kT0 + FromSeconds(600), kT0 + FromSeconds(1200)));
  World w = MakeWorld(c);
  // Fills n1 for the whole window.
  JobId a = SubmitAndSchedule(w, SlurmJob("bob", "spot", 1, 8, FromSeconds(5000)));
  EXPECT_EQ(w.PlacementString(J(w, a)), "n1");
  // Ends before the reservation starts: may use n2 now.
  JobId quick =
      SubmitAndSchedule(w, SlurmJob("bob", "spot", 1, 8, FromSeconds(100), FromSeconds(300)));
  EXPECT_EQ(w.PlacementString(J(w, quick)), "n2");
  Advance(w, FromSeconds(101));  // quick ended
  // Would still run at +600 (limit 1000 s): not started on n2.
  JobId slow =
      SubmitAndSchedule(w, SlurmJob("bob", "spot", 1, 8, FromSeconds(100), FromSeconds(1000)));
  EXPECT_EQ(J(w, slow).state, JobState::kPending);
  EXPECT_EQ(J(w, slow).reason, "Reservation");
  // After the reservation ends, it starts there.
  Advance(w, FromSeconds(1100));
  EXPECT_EQ(J(w, slow).state, JobState::kRunning);
  EXPECT_EQ(w.PlacementString(J(w, slow)), "n2");
}

TEST(Reservations, FlexJobsStartEarlyAndOutside) {
  WorldConfig c = SlurmConfig(3);
  c.clusters[0].reservations.push_back(
      Resv("flex", {"n3"}, kT0 + FromSeconds(100), kNever, kResvFlex));
  World w = MakeWorld(c);
  // Before its start and on more nodes than it holds.
  JobId j = SubmitAndSchedule(w, InResv(SlurmJob("alice", "spot", 3, 8), "flex"));
  EXPECT_EQ(J(w, j).state, JobState::kRunning);
  EXPECT_EQ(w.PlacementString(J(w, j)), "n[1-3]");
}

TEST(Reservations, IgnoreJobsAndBusyNodes) {
  World w = MakeWorld(SlurmConfig(2));
  JobId a = SubmitAndSchedule(w, SlurmJob("bob", "spot", 1, 8, FromSeconds(500)));
  ASSERT_EQ(w.PlacementString(J(w, a)), "n1");
  // n1 runs an unlimited job: busy.
  absl::Status busy = w.CreateReservation(0, Resv("m", {"n1"}));
  EXPECT_EQ(ReasonOf(busy), Reason::kReservationNodesBusy);
  // A node count picks the nodes that are free.
  ReservationConfig count = Resv("count", {});
  count.node_count = 1;
  ASSERT_TRUE(w.CreateReservation(0, count).ok());
  EXPECT_EQ(w.FindReservation(0, "count")->config.nodes, std::vector<std::string>{"n2"});
  EXPECT_EQ(w.FindReservation(0, "count")->config.partition, "spot");
  // IGNORE_JOBS: created over the running job, which keeps running.
  ASSERT_TRUE(
      w.CreateReservation(0, Resv("m", {"n1"}, 0, kNever, kResvIgnoreJobs | kResvOverlap)).ok());
  Advance(w, FromSeconds(10));
  EXPECT_EQ(J(w, a).state, JobState::kRunning);
  // Unknown node, bad window, no users.
  EXPECT_EQ(ReasonOf(w.CreateReservation(0, Resv("x", {"zz"}))), Reason::kUnknownNode);
  EXPECT_EQ(ReasonOf(w.CreateReservation(0, Resv("x", {"n2"}, kT0 + FromSeconds(50), kT0))),
            Reason::kInvalidArgument);
  ReservationConfig nobody = Resv("x", {"n2"}, 0, kNever, kResvOverlap);
  nobody.users.clear();
  EXPECT_EQ(ReasonOf(w.CreateReservation(0, nobody)), Reason::kInvalidArgument);
}

TEST(Reservations, ScenarioErrorsNameTheReservation) {
  WorldConfig c = SlurmConfig(2);
  c.clusters[0].reservations.push_back(Resv("bad", {"nope"}));
  absl::StatusOr<World> w = World::Create(c);
  ASSERT_FALSE(w.ok());
  EXPECT_THAT(std::string(w.status().message()), ::testing::HasSubstr("reservation 'bad'"));
}

}  // namespace
}  // namespace schedemu::testing
