// A streaming JSON writer for the hot views (a slurmrestd job is ~150 keys): it appends straight
// to a std::string instead of building an nlohmann::json tree (one heap node per key) and dumping
// it. Strings are escaped by AppendJsonString (api/json_escape.h), exactly as nlohmann's
// dump(-1, ' ', false, error_handler_t::replace) does, so a view moved to the writer answers the
// same bytes for every value. Commas are placed by the writer; keys are written in call order.
#ifndef SCHEDEMU_API_JSON_WRITER_H_
#define SCHEDEMU_API_JSON_WRITER_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "api/json_escape.h"

namespace schedemu::api {

// Reserves `capacity` bytes for a large answer (GET /jobs of thousands of jobs). Above a few MiB
// the allocation is a fresh mmap on every request, and touching it page by page costs more than
// writing the JSON; the buffer is asked to be backed by transparent huge pages (a hint: ignored
// where THP is off).
void ReserveLarge(std::string& out, size_t capacity);

class JsonWriter {
 public:
  explicit JsonWriter(std::string& out) : out_(out) {}

  JsonWriter& BeginObject() { return Open('{'); }
  JsonWriter& EndObject() { return Close('}'); }
  JsonWriter& BeginArray() { return Open('['); }
  JsonWriter& EndArray() { return Close(']'); }

  // A key from data: escaped.
  JsonWriter& Key(std::string_view key) {
    if (need_comma_) out_.push_back(',');
    AppendJsonString(out_, key);
    out_.push_back(':');
    return AfterKey();
  }
  JsonWriter& Key(const std::string& key) { return Key(std::string_view(key)); }
  // A key spelled in the source (a string literal): plain ASCII by construction, copied as is.
  template <size_t N>
  JsonWriter& Key(const char (&literal)[N]) {
    if (need_comma_) out_.push_back(',');
    out_.push_back('"');
    out_.append(literal, N - 1);
    out_.append("\":", 2);
    return AfterKey();
  }
  JsonWriter& String(std::string_view v) {
    Prefix();
    AppendJsonString(out_, v);
    return Done();
  }
  JsonWriter& Int(int64_t v);
  JsonWriter& Bool(bool v) {
    Prefix();
    out_.append(v ? "true" : "false");
    return Done();
  }
  // Already-serialized JSON (a cached or nested document), written as one value.
  JsonWriter& Raw(std::string_view json) {
    Prefix();
    out_.append(json);
    return Done();
  }
  // Continues the value just written (no comma): for values assembled from raw pieces.
  void AppendRaw(std::string_view json) { out_.append(json); }
  void AppendInt(int64_t v);
  size_t size() const { return out_.size(); }  // bytes in the output so far
  JsonWriter& EmptyArray() { return Raw("[]"); }
  JsonWriter& EmptyObject() { return Raw("{}"); }

  // Literal key + value in one call.
  template <size_t N>
  JsonWriter& Field(const char (&key)[N], std::string_view v) {
    return Key(key).String(v);
  }
  template <size_t N>
  JsonWriter& Field(const char (&key)[N], const char* v) {
    return Key(key).String(v);
  }
  template <size_t N>
  JsonWriter& Field(const char (&key)[N], const std::string& v) {
    return Key(key).String(v);
  }
  template <size_t N>
  JsonWriter& Field(const char (&key)[N], bool v) {
    return Key(key).Bool(v);
  }
  template <size_t N>
  JsonWriter& Field(const char (&key)[N], int v) {
    return Key(key).Int(v);
  }
  template <size_t N>
  JsonWriter& Field(const char (&key)[N], int64_t v) {
    return Key(key).Int(v);
  }

 private:
  void Prefix() {
    if (after_key_) {
      after_key_ = false;
    } else if (need_comma_) {
      out_.push_back(',');
    }
  }
  JsonWriter& AfterKey() {
    after_key_ = true;
    need_comma_ = false;
    return *this;
  }
  JsonWriter& Done() {
    need_comma_ = true;
    return *this;
  }
  JsonWriter& Open(char c) {
    Prefix();
    out_.push_back(c);
    need_comma_ = false;
    return *this;
  }
  JsonWriter& Close(char c) {
    out_.push_back(c);
    after_key_ = false;
    return Done();
  }

  std::string& out_;
  bool need_comma_ = false;
  bool after_key_ = false;
};

}  // namespace schedemu::api

#endif  // SCHEDEMU_API_JSON_WRITER_H_
