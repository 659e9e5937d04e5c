#include "api/emulator.h"

#include <malloc.h>

#include <cstdio>

#include <nlohmann/json.hpp>

#include "absl/strings/str_format.h"
#include "api/control_plane.h"

namespace schedemu::api {

Emulator::Emulator(EmulatorOptions options, Clock::WallSource wall)
    : options_(std::move(options)),
      wall_(std::move(wall)),
      control_(std::make_shared<ControlPlane>()) {}

absl::Status Emulator::Load(WorldConfig config, std::string scenario_text) {
  if (options_.seed) config.seed = *options_.seed;
  absl::StatusOr<World> world = World::Create(config, wall_);
  if (!world.ok()) return world.status();
  world->clock().SetMode(options_.clock_mode);
  world->clock().SetSpeed(options_.speed);
  world->clock().Set(world->now());
  std::string name;
  if (nlohmann::json doc = nlohmann::json::parse(scenario_text, nullptr, false);
      doc.is_object() && doc.contains("name") && doc["name"].is_string()) {
    name = doc["name"].get<std::string>();
  }
  std::unique_ptr<World> old;
  {
    std::lock_guard<std::mutex> lock(mu_);
    scenario_name_ = std::move(name);
    old = std::exchange(world_, std::make_unique<World>(std::move(*world)));
    ++revision_;
    written_ = true;
    views_.Clear();
    loaded_config_ = std::move(config);
    scenario_text_ = std::move(scenario_text);
  }
  if (old) {
    old.reset();
    malloc_trim(0);  // give the old world's pages back to the OS (glibc keeps them otherwise)
  }
  return absl::OkStatus();
}

absl::Status Emulator::Reset() {
  WorldConfig config = loaded_config_;
  std::string text = scenario_text_;
  return Load(std::move(config), std::move(text));
}

std::string Emulator::NextRequestId() {
  // Counter-based, UUID-shaped (version 4 layout); never touches the world's generator.
  uint64_t n = request_counter_.fetch_add(1, std::memory_order_relaxed) + 1;
  uint64_t mixed = n * 0x9E3779B97F4A7C15ull;
  return absl::StrFormat("%08x-%04x-4%03x-8%03x-%012x", static_cast<uint32_t>(mixed >> 32),
                         static_cast<uint32_t>((mixed >> 16) & 0xffff),
                         static_cast<uint32_t>(mixed & 0xfff),
                         static_cast<uint32_t>((n >> 48) & 0xfff), n & 0xffffffffffffull);
}

}  // namespace schedemu::api
