// A small map of strings to strings as one sorted vector: the headers and path parameters of an
// HttpRequest (api/http.h). A request has a handful of each; a std::map spent a heap node per
// entry and a std::string per lookup. Same interface and iteration order (ascending by key) as
// the std::map it replaces, with lookups by string_view that build nothing, and a clear() that
// keeps the entries' strings for the next fill.
#ifndef SCHEDEMU_API_STRING_MAP_H_
#define SCHEDEMU_API_STRING_MAP_H_

#include <algorithm>
#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace schedemu::api {

class StringMap {
 public:
  using value_type = std::pair<std::string, std::string>;
  using iterator = std::vector<value_type>::iterator;
  using const_iterator = std::vector<value_type>::const_iterator;

  StringMap() = default;
  template <typename It>
  StringMap(It first, It last) {
    for (; first != last; ++first) emplace(first->first, first->second);
  }
  // From the std::map callers build headers in (tests, in-process callers): `r.headers = map`.
  StringMap(const std::map<std::string, std::string>& m)  // NOLINT: implicit on purpose
      : StringMap(m.begin(), m.end()) {}
  // Copies the entries only, not the spare ones (below).
  StringMap(const StringMap& other) : entries_(other.begin(), other.end()), size_(other.size_) {}
  StringMap& operator=(const StringMap& other) {
    if (this != &other) {
      entries_.assign(other.begin(), other.end());
      size_ = other.size_;
    }
    return *this;
  }
  StringMap(StringMap&& other) noexcept
      : entries_(std::move(other.entries_)), size_(std::exchange(other.size_, 0)) {}
  StringMap& operator=(StringMap&& other) noexcept {
    entries_ = std::move(other.entries_);
    size_ = std::exchange(other.size_, 0);
    other.entries_.clear();
    return *this;
  }

  iterator begin() { return entries_.begin(); }
  iterator end() { return entries_.begin() + static_cast<std::ptrdiff_t>(size_); }
  const_iterator begin() const { return entries_.begin(); }
  const_iterator end() const { return entries_.begin() + static_cast<std::ptrdiff_t>(size_); }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  // Empties the map but keeps its entries' strings as spares: a map refilled per request (the
  // session's, server/session.h) reuses their buffers instead of allocating new ones.
  void clear() { size_ = 0; }

  iterator find(std::string_view key) {
    iterator it = LowerBound(key);
    return it != end() && it->first == key ? it : end();
  }
  const_iterator find(std::string_view key) const {
    const_iterator it = LowerBound(key);
    return it != end() && it->first == key ? it : end();
  }
  bool contains(std::string_view key) const { return find(key) != end(); }
  size_t count(std::string_view key) const { return contains(key) ? 1 : 0; }

  // Inserts (key, value) unless the key is there; the entry and whether it was inserted.
  template <typename K, typename V>
  std::pair<iterator, bool> try_emplace(K&& key, V&& value) {
    const std::string_view k(key);
    iterator it = LowerBound(k);
    if (it != end() && it->first == k) return {it, false};
    const std::ptrdiff_t at = it - begin();
    if (size_ < entries_.size()) {  // a spare entry: fill it, then rotate it into place
      value_type& spare = entries_[size_];
      spare.first.assign(k);
      spare.second.assign(std::string_view(value));
      std::rotate(begin() + at, begin() + static_cast<std::ptrdiff_t>(size_),
                  begin() + static_cast<std::ptrdiff_t>(size_) + 1);
    } else {
      entries_.emplace(it, std::string(std::forward<K>(key)), std::string(std::forward<V>(value)));
    }
    ++size_;
    return {begin() + at, true};
  }
  template <typename K, typename V>
  std::pair<iterator, bool> emplace(K&& key, V&& value) {
    return try_emplace(std::forward<K>(key), std::forward<V>(value));
  }
  template <typename K>
  std::string& operator[](K&& key) {
    return try_emplace(std::forward<K>(key), std::string_view()).first->second;
  }
  size_t erase(std::string_view key) {
    iterator it = find(key);
    if (it == end()) return 0;
    std::rotate(it, it + 1, end());  // the erased entry becomes the first spare
    --size_;
    return 1;
  }

  bool operator==(const StringMap& other) const {
    return std::equal(begin(), end(), other.begin(), other.end());
  }

 private:
  iterator LowerBound(std::string_view key) {
    return std::lower_bound(begin(), end(), key,
                            [](const value_type& e, std::string_view k) { return e.first < k; });
  }
  const_iterator LowerBound(std::string_view key) const {
    return std::lower_bound(begin(), end(), key,
                            [](const value_type& e, std::string_view k) { return e.first < k; });
  }

  // entries_[0, size_) are the map, ascending by key; the rest are spares (cleared or erased
  // entries whose strings keep their buffers).
  std::vector<value_type> entries_;
  size_t size_ = 0;
};

}  // namespace schedemu::api

#endif  // SCHEDEMU_API_STRING_MAP_H_
