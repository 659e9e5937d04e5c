// Slurm node features and job constraints (`sbatch --constraint`, job_desc `constraints`): the
// expression grammar slurmctld accepts as far as the model honours it, and which nodes satisfy
// it. Pure functions of the text and the nodes' feature lists (scheduler/placement.cc applies
// them; docs/slurm-jobs.md).
//
// Grammar: feature names joined by `&` (AND; `,` is read as AND too) and `|` (OR), with
// parentheses, and at most one matching-OR group in brackets, `[a|b|c]`: every node of the job
// must have the same one of its alternatives. Node counts (`a*2`) are not modelled.
#ifndef SCHEDEMU_SCHEDULER_FEATURES_H_
#define SCHEDEMU_SCHEDULER_FEATURES_H_

#include <string>
#include <string_view>
#include <vector>

namespace schedemu {

// A parsed constraint: an OR of ANDs of feature names (disjunctive normal form), one per
// alternative of the matching-OR group (one alternative when there is none).
struct FeatureConstraint {
  // alternatives[a] = the DNF of the expression with the bracket group replaced by its
  // alternative a: a node satisfies it when some term's features are all on the node.
  std::vector<std::vector<std::vector<std::string>>> alternatives;
  std::vector<std::string> names;  // every feature name the expression uses
  bool matching_or = false;        // a bracket group was given
};

enum class FeatureParse { kOk, kInvalid, kNotSupported };

// Parses `text` into *out. kInvalid: not valid Slurm syntax (ESLURM_INVALID_FEATURE);
// kNotSupported: valid Slurm syntax the model does not honour (node counts `*N`, several
// bracket groups).
FeatureParse ParseFeatureConstraint(std::string_view text, FeatureConstraint* out);

// Whether a node with `features` satisfies alternative `alt` of `c`.
bool NodeSatisfies(const FeatureConstraint& c, size_t alt,
                   const std::vector<std::string>& features);

}  // namespace schedemu

#endif  // SCHEDEMU_SCHEDULER_FEATURES_H_
