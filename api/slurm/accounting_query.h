// What the accounting operations share: reading slurmdbd's query parameters (CSV lists, flags
// given as `?with_assocs` or `?with_assocs=true`) and running against the cluster's AccountingDb.
#ifndef SCHEDEMU_API_SLURM_ACCOUNTING_QUERY_H_
#define SCHEDEMU_API_SLURM_ACCOUNTING_QUERY_H_

#include <set>
#include <string>
#include <string_view>
#include <utility>

#include "api/slurm/accounting_db.h"
#include "api/slurm/reply.h"

namespace schedemu::api::slurm {

using NameSet = std::set<std::string, std::less<>>;

// "a,b,,c" -> {a, b, c}.
NameSet CsvSet(std::string_view value);
// A flag parameter is set unless its value is false/no/0.
bool FlagValue(std::string_view value);
// Whether `set` is empty (no filter) or holds `value`.
inline bool Allows(const NameSet& set, std::string_view value) {
  return set.empty() || set.contains(value);
}

// Reads the query: `take(key, value)` returns false for a key the operation does not know, which
// gets slurmrestd's "Ignoring unknown field" warning naming `parser` (e.g. "ASSOC_CONDITION").
template <typename Take>
void ReadQuery(const Call& call, Reply& reply, std::string_view parser, Take take) {
  for (const auto& [key, value] : call.query) {
    if (!take(key, value)) {
      reply.warnings.push_back(WarningUnknownField(key, "string", parser, "#/" + key));
    }
  }
}

// Runs fn(World&, cluster index, const AccountingDb&, Reply&) for the request's cluster.
template <typename F>
SlurmResponse OnDb(const Call& call, Reply reply, F&& fn) {
  return OnCluster(call, std::move(reply), [&](World& w, int ci, Reply& r) {
    const AccountingDb db = BuildAccountingDb(w, ci);
    fn(w, ci, db, r);
  });
}

}  // namespace schedemu::api::slurm

#endif  // SCHEDEMU_API_SLURM_ACCOUNTING_QUERY_H_
