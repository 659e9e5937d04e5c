#include "scheduler/rng.h"

#include <sstream>

namespace schedemu {

double SeededRng::NextDouble() {
  // 53 random bits -> [0, 1); independent of the standard library's distribution implementation.
  return static_cast<double>(engine_() >> 11) * (1.0 / 9007199254740992.0);
}

std::string SeededRng::Hex(int n) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(n > 0 ? n : 0);
  uint64_t bits = 0;
  int left = 0;
  for (int i = 0; i < n; ++i) {
    if (left == 0) {
      bits = engine_();
      left = 16;
    }
    out.push_back(kDigits[bits & 0xf]);
    bits >>= 4;
    --left;
  }
  return out;
}

std::string SeededRng::Uuid4() {
  std::string h = Hex(32);
  h[12] = '4';
  static constexpr char kVariant[] = "89ab";
  h[16] = kVariant[(h[16] >= 'a' ? h[16] - 'a' + 10 : h[16] - '0') & 3];
  return h.substr(0, 8) + "-" + h.substr(8, 4) + "-" + h.substr(12, 4) + "-" + h.substr(16, 4) +
         "-" + h.substr(20, 12);
}

std::string SeededRng::State() const {
  std::ostringstream out;
  out << engine_;
  return out.str();
}

bool SeededRng::SetState(const std::string& state) {
  std::istringstream in(state);
  std::mt19937_64 engine;
  in >> engine;
  if (in.fail()) return false;
  engine_ = engine;
  return true;
}

}  // namespace schedemu
