#include "api/slurm/job_spec.h"

#include <nlohmann/json.hpp>

#include "api/json_writer.h"

namespace schedemu::api::slurm {

namespace {

using nlohmann::json;

struct IntField {
  std::string_view name;
  int64_t SlurmJobSpec::*member;
};

constexpr SlurmJobSpec::StringField kStringFields[] = {
    {"current_working_directory", &SlurmJobSpec::current_working_directory},
    {"standard_output", &SlurmJobSpec::standard_output},
    {"standard_error", &SlurmJobSpec::standard_error},
    {"standard_input", &SlurmJobSpec::standard_input},
    {"account", &SlurmJobSpec::account},
    {"comment", &SlurmJobSpec::comment},
    {"qos", &SlurmJobSpec::qos},
    {"tres_per_node", &SlurmJobSpec::tres_per_node},
    {"tres_per_job", &SlurmJobSpec::tres_per_job},
};

constexpr IntField kIntFields[] = {
    {"tasks", &SlurmJobSpec::tasks},
    {"tasks_per_node", &SlurmJobSpec::tasks_per_node},
    {"cpus_per_task", &SlurmJobSpec::cpus_per_task},
    {"memory_per_node", &SlurmJobSpec::memory_per_node},
    {"memory_per_cpu", &SlurmJobSpec::memory_per_cpu},
    {"nice", &SlurmJobSpec::nice},
};

// Reads Encode's flat {"name": string|integer} object without building a tree: every job view
// decodes the spec of every job it writes.
class DecodeSax : public nlohmann::json_sax<json> {
 public:
  explicit DecodeSax(SlurmJobSpec& spec) : spec_(spec) {}
  bool key(string_t& k) override {
    str_ = nullptr;
    num_ = nullptr;
    if (depth_ != 1) return true;
    for (const SlurmJobSpec::StringField& f : kStringFields) {
      if (k == f.name) {
        str_ = &(spec_.*f.member);
        return true;
      }
    }
    for (const IntField& f : kIntFields) {
      if (k == f.name) {
        num_ = &(spec_.*f.member);
        return true;
      }
    }
    return true;
  }
  bool string(string_t& v) override {
    if (depth_ == 1 && str_ != nullptr) *str_ = std::move(v);
    return Value();
  }
  bool number_integer(number_integer_t v) override {
    if (depth_ == 1 && num_ != nullptr) *num_ = v;
    return Value();
  }
  bool number_unsigned(number_unsigned_t v) override {
    if (depth_ == 1 && num_ != nullptr && v <= static_cast<uint64_t>(INT64_MAX)) {
      *num_ = static_cast<int64_t>(v);
    }
    return Value();
  }
  bool null() override { return Value(); }
  bool boolean(bool) override { return Value(); }
  bool number_float(number_float_t, const string_t&) override { return Value(); }
  bool binary(binary_t&) override { return Value(); }
  bool start_object(std::size_t) override { return Open(); }
  bool end_object() override { return Close(); }
  bool start_array(std::size_t) override { return Open(); }
  bool end_array() override { return Close(); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    return false;
  }

 private:
  bool Value() {
    str_ = nullptr;
    num_ = nullptr;
    return true;
  }
  bool Open() {
    ++depth_;
    return Value();
  }
  bool Close() {
    --depth_;
    return Value();
  }
  SlurmJobSpec& spec_;
  std::string* str_ = nullptr;
  int64_t* num_ = nullptr;
  int depth_ = 0;
};

}  // namespace

std::span<const SlurmJobSpec::StringField> SlurmJobSpec::StringFields() { return kStringFields; }

std::string SlurmJobSpec::Encode() const {
  std::string out;
  JsonWriter w(out);
  w.BeginObject();
  for (const StringField& f : kStringFields) {
    if (!(this->*f.member).empty()) w.Key(f.name).String(this->*f.member);
  }
  for (const IntField& f : kIntFields) {
    if (this->*f.member != 0) w.Key(f.name).Int(this->*f.member);
  }
  w.EndObject();
  return out;
}

SlurmJobSpec SlurmJobSpec::Decode(std::string_view text) {
  if (text.empty()) return {};
  SlurmJobSpec spec;
  DecodeSax sax(spec);
  if (!json::sax_parse(text, &sax, nlohmann::detail::input_format_t::json, false)) return {};
  return spec;
}

}  // namespace schedemu::api::slurm
