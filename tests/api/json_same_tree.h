// One JSON document tree compared with another node by node, types included: the oracle of the
// fast body parser (api/json_parse.h) against nlohmann's, shared by tests/api/json_parse_test.cc
// and the differential fuzz target (tests/fuzz/fuzz_entries.cc, FuzzJsonParse).
#ifndef SCHEDEMU_TESTS_API_JSON_SAME_TREE_H_
#define SCHEDEMU_TESTS_API_JSON_SAME_TREE_H_

#include <cmath>
#include <cstddef>

#include <nlohmann/json.hpp>

namespace schedemu::jsontest {

// The same tree: the same type at every node (unsigned / integer / float told apart), the same
// values, the same keys in the same order.
inline bool SameTree(const nlohmann::json& a, const nlohmann::json& b) {
  if (a.type() != b.type()) return false;
  switch (a.type()) {
    case nlohmann::json::value_t::object: {
      if (a.size() != b.size()) return false;
      auto ia = a.begin();
      auto ib = b.begin();
      for (; ia != a.end(); ++ia, ++ib) {
        if (ia.key() != ib.key() || !SameTree(*ia, *ib)) return false;
      }
      return true;
    }
    case nlohmann::json::value_t::array:
      if (a.size() != b.size()) return false;
      for (size_t i = 0; i < a.size(); ++i) {
        if (!SameTree(a[i], b[i])) return false;
      }
      return true;
    case nlohmann::json::value_t::number_float: {
      const double x = a.get<double>();
      const double y = b.get<double>();
      return std::signbit(x) == std::signbit(y) && (x == y || (x != x && y != y));
    }
    default:
      return a == b;
  }
}

}  // namespace schedemu::jsontest

#endif  // SCHEDEMU_TESTS_API_JSON_SAME_TREE_H_
