// A small binary archive for plain values: what scheduler/world_image.h writes a World with, and
// what the api layer writes its own state beside it with (api/headless/state_file.cc), so one
// state file has one encoding and the model needs no JSON.
//
// Encoding (host byte order, little-endian on every platform this builds for): bool 1 byte;
// integers and enums at their own width (enums as int64); doubles as their 8 bytes; strings and
// containers as a u64 count, then the bytes or elements; optionals a bool then the value; pairs
// and tuples their members in order. A struct is its members in the order its Fields function
// lists them: `template <class A> void Fields(A& a, T& x) { a(x.first_member, ...); }`, found by
// argument-dependent lookup and used for both directions. Members holding a secret are written
// through `a.Secret(x.member)`, which a redacting Writer writes as "".
//
// The Reader never reads past its input: a short input, a count larger than what is left, or an
// element that does not fit sets !ok() and leaves zero values behind.
#ifndef SCHEDEMU_SCHEDULER_IMAGE_IO_H_
#define SCHEDEMU_SCHEDULER_IMAGE_IO_H_

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace schedemu::image {

template <class T>
struct IsOptional : std::false_type {};
template <class T>
struct IsOptional<std::optional<T>> : std::true_type {};
template <class T>
struct IsPair : std::false_type {};
template <class A, class B>
struct IsPair<std::pair<A, B>> : std::true_type {};
template <class T>
struct IsTuple : std::false_type {};
template <class... T>
struct IsTuple<std::tuple<T...>> : std::true_type {};

template <class T>
concept Container = requires(T c) {
  c.begin();
  c.end();
  c.size();
  c.clear();
  typename T::value_type;
};
template <class T>
concept MapLike = Container<T> && requires {
  typename T::mapped_type;
};
// A hash map: written in key order, so the image's bytes never depend on its layout.
template <class T>
concept HashMapLike = MapLike<T> && requires {
  typename T::hasher;
};
template <class T>
concept SetLike = Container<T> && !MapLike<T> && requires {
  typename T::key_type;
};

class Writer {
 public:
  static constexpr bool kReading = false;
  explicit Writer(bool redact_secrets = false) : redact_(redact_secrets) {}

  template <class... T>
  void operator()(const T&... v) {
    (Put(v), ...);
  }
  void Secret(const std::string& s) { Put(redact_ ? std::string() : s); }

  template <class T>
  void Put(const T& v) {
    if constexpr (std::is_same_v<T, bool>) {
      const uint8_t b = v ? 1 : 0;
      Raw(&b, 1);
    } else if constexpr (std::is_enum_v<T>) {
      Put(static_cast<int64_t>(v));
    } else if constexpr (std::is_arithmetic_v<T>) {
      Raw(&v, sizeof v);
    } else if constexpr (std::is_same_v<T, std::string>) {
      Put(static_cast<uint64_t>(v.size()));
      Raw(v.data(), v.size());
    } else if constexpr (IsOptional<T>::value) {
      Put(v.has_value());
      if (v) Put(*v);
    } else if constexpr (IsPair<T>::value) {
      Put(v.first);
      Put(v.second);
    } else if constexpr (IsTuple<T>::value) {
      std::apply([&](const auto&... e) { (Put(e), ...); }, v);
    } else if constexpr (HashMapLike<T>) {
      std::vector<const typename T::value_type*> sorted;
      sorted.reserve(v.size());
      for (const auto& e : v) sorted.push_back(&e);
      std::sort(sorted.begin(), sorted.end(),
                [](const auto* a, const auto* b) { return a->first < b->first; });
      Put(static_cast<uint64_t>(v.size()));
      for (const auto* e : sorted) Put(*e);
    } else if constexpr (Container<T>) {
      Put(static_cast<uint64_t>(v.size()));
      for (const auto& e : v) Put(e);
    } else {
      Fields(*this, const_cast<T&>(v));
    }
  }

  std::string& out() { return out_; }

 private:
  void Raw(const void* p, size_t n) { out_.append(static_cast<const char*>(p), n); }
  std::string out_;
  bool redact_;
};

class Reader {
 public:
  static constexpr bool kReading = true;
  explicit Reader(std::string_view in) : in_(in) {}

  template <class... T>
  void operator()(T&... v) {
    (Get(v), ...);
  }
  void Secret(std::string& s) { Get(s); }

  template <class T>
  void Get(T& v) {
    if constexpr (std::is_same_v<T, bool>) {
      uint8_t b = 0;
      Raw(&b, 1);
      if (b > 1) ok_ = false;
      v = b == 1;
    } else if constexpr (std::is_enum_v<T>) {
      int64_t x = 0;
      Get(x);
      v = static_cast<T>(x);
    } else if constexpr (std::is_arithmetic_v<T>) {
      Raw(&v, sizeof v);
    } else if constexpr (std::is_same_v<T, std::string>) {
      const uint64_t n = Count(1);
      v.assign(ok_ ? in_.substr(pos_, n) : std::string_view());
      if (ok_) pos_ += n;
    } else if constexpr (IsOptional<T>::value) {
      bool has = false;
      Get(has);
      v.reset();
      if (has) {
        v.emplace();
        Get(*v);
      }
    } else if constexpr (IsPair<T>::value) {
      Get(v.first);
      Get(v.second);
    } else if constexpr (IsTuple<T>::value) {
      std::apply([&](auto&... e) { (Get(e), ...); }, v);
    } else if constexpr (MapLike<T>) {
      v.clear();
      const uint64_t n = Count(1);
      if constexpr (HashMapLike<T>) {
        if (ok_) v.reserve(n);
      }
      for (uint64_t i = 0; i < n && ok_; ++i) {
        std::pair<typename T::key_type, typename T::mapped_type> e;
        Get(e);
        v.emplace_hint(v.end(), std::move(e.first), std::move(e.second));
      }
    } else if constexpr (SetLike<T>) {
      v.clear();
      const uint64_t n = Count(1);
      for (uint64_t i = 0; i < n && ok_; ++i) {
        typename T::value_type e{};
        Get(e);
        v.emplace_hint(v.end(), std::move(e));
      }
    } else if constexpr (Container<T>) {
      v.clear();
      const uint64_t n = Count(1);
      v.reserve(n);
      for (uint64_t i = 0; i < n && ok_; ++i) {
        v.emplace_back();
        Get(v.back());
      }
    } else {
      Fields(*this, v);
    }
  }

  bool ok() const { return ok_; }
  // Everything read, nothing left over.
  bool done() const { return ok_ && pos_ == in_.size(); }
  void Fail() { ok_ = false; }

 private:
  // A count of elements at least `min_bytes` each: more than what is left fails.
  uint64_t Count(uint64_t min_bytes) {
    uint64_t n = 0;
    Get(n);
    if (!ok_ || n > (in_.size() - pos_) / min_bytes) {
      ok_ = false;
      return 0;
    }
    return n;
  }
  void Raw(void* p, size_t n) {
    if (!ok_ || in_.size() - pos_ < n) {
      ok_ = false;
      std::memset(p, 0, n);
      return;
    }
    std::memcpy(p, in_.data() + pos_, n);
    pos_ += n;
  }
  std::string_view in_;
  size_t pos_ = 0;
  bool ok_ = true;
};

}  // namespace schedemu::image

#endif  // SCHEDEMU_SCHEDULER_IMAGE_IO_H_
