// The seeded generator every identifier comes from, so a run is a pure function of
// (scenario, seed, requests).
#ifndef SCHEDEMU_SCHEDULER_RNG_H_
#define SCHEDEMU_SCHEDULER_RNG_H_

#include <cstdint>
#include <random>
#include <string>

namespace schedemu {

class SeededRng {
 public:
  explicit SeededRng(uint64_t seed = 0) : engine_(seed) {}
  uint64_t Next() { return engine_(); }
  // Uniform in [0, 1).
  double NextDouble();
  // RFC 4122 version-4 UUID, lowercase hex.
  std::string Uuid4();
  // Lowercase hex string of `n` characters.
  std::string Hex(int n);
  // The generator's whole state as text, and back (false when `state` is not one): a restored
  // world draws the same numbers next (scheduler/world_image.h).
  std::string State() const;
  bool SetState(const std::string& state);

 private:
  std::mt19937_64 engine_;
};

}  // namespace schedemu

#endif  // SCHEDEMU_SCHEDULER_RNG_H_
