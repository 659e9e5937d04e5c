#include "scheduler/features.h"

#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace schedemu {

namespace {

using Term = std::vector<std::string>;  // features all required
using Dnf = std::vector<Term>;          // any one term

// Recursive descent over the text; `choice` picks the alternative of the bracket group (-1: the
// group stands for all its alternatives, ORed).
class Parser {
 public:
  Parser(std::string_view text, int choice) : text_(text), choice_(choice) {}

  FeatureParse Run(Dnf* out) {
    *out = Or();
    if (status_ == FeatureParse::kOk && pos_ != text_.size()) status_ = FeatureParse::kInvalid;
    return status_;
  }
  int brackets() const { return brackets_; }
  size_t bracket_alternatives() const { return bracket_alternatives_; }
  const std::vector<std::string>& names() const { return names_; }

 private:
  bool Fail(FeatureParse why) {
    if (status_ == FeatureParse::kOk) status_ = why;
    return false;
  }
  char Peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }

  Dnf Or() {
    Dnf out = And();
    while (status_ == FeatureParse::kOk && Peek() == '|') {
      ++pos_;
      Dnf more = And();
      out.insert(out.end(), more.begin(), more.end());
    }
    return out;
  }

  Dnf And() {
    Dnf out = Factor();
    while (status_ == FeatureParse::kOk && (Peek() == '&' || Peek() == ',')) {
      ++pos_;
      Dnf rhs = Factor();
      Dnf product;
      for (const Term& a : out) {
        for (const Term& b : rhs) {
          Term t = a;
          t.insert(t.end(), b.begin(), b.end());
          product.push_back(std::move(t));
        }
      }
      out = std::move(product);
      if (out.size() > 4096) Fail(FeatureParse::kNotSupported);  // a blow-up no cluster needs
    }
    return out;
  }

  Dnf Factor() {
    const char c = Peek();
    if (c == '(') {
      ++pos_;
      Dnf inner = Or();
      if (Peek() != ')') {
        Fail(FeatureParse::kInvalid);
        return {};
      }
      ++pos_;
      return inner;
    }
    if (c == '[') {
      ++pos_;
      if (++brackets_ > 1) Fail(FeatureParse::kNotSupported);
      if (depth_in_bracket_++ > 0) Fail(FeatureParse::kInvalid);
      Dnf inner = Or();
      --depth_in_bracket_;
      if (Peek() != ']') {
        Fail(FeatureParse::kInvalid);
        return {};
      }
      ++pos_;
      bracket_alternatives_ = inner.size();
      if (choice_ >= 0 && static_cast<size_t>(choice_) < inner.size()) return {inner[choice_]};
      return inner;
    }
    size_t start = pos_;
    while (pos_ < text_.size()) {
      const unsigned char ch = static_cast<unsigned char>(text_[pos_]);
      if (std::isalnum(ch) || ch == '_' || ch == '-' || ch == '.' || ch == ':' || ch == '=' ||
          ch == '+' || ch == '/') {
        ++pos_;
      } else {
        break;
      }
    }
    if (pos_ == start) {
      Fail(FeatureParse::kInvalid);
      return {};
    }
    std::string name(text_.substr(start, pos_ - start));
    if (Peek() == '*') {  // a node count: valid Slurm, not modelled
      Fail(FeatureParse::kNotSupported);
      return {};
    }
    if (std::find(names_.begin(), names_.end(), name) == names_.end()) names_.push_back(name);
    return {Term{std::move(name)}};
  }

  std::string_view text_;
  int choice_;
  size_t pos_ = 0;
  int brackets_ = 0;
  int depth_in_bracket_ = 0;
  size_t bracket_alternatives_ = 0;
  std::vector<std::string> names_;
  FeatureParse status_ = FeatureParse::kOk;
};

}  // namespace

FeatureParse ParseFeatureConstraint(std::string_view text, FeatureConstraint* out) {
  *out = FeatureConstraint{};
  if (text.empty()) return FeatureParse::kInvalid;
  Parser first(text, -1);
  Dnf all;
  if (FeatureParse st = first.Run(&all); st != FeatureParse::kOk) return st;
  out->names = first.names();
  if (first.brackets() == 0) {
    out->alternatives.push_back(std::move(all));
    return FeatureParse::kOk;
  }
  out->matching_or = true;
  for (size_t a = 0; a < first.bracket_alternatives(); ++a) {
    Parser p(text, static_cast<int>(a));
    Dnf dnf;
    p.Run(&dnf);
    out->alternatives.push_back(std::move(dnf));
  }
  return FeatureParse::kOk;
}

bool NodeSatisfies(const FeatureConstraint& c, size_t alt,
                   const std::vector<std::string>& features) {
  if (alt >= c.alternatives.size()) return false;
  for (const Term& t : c.alternatives[alt]) {
    bool all = true;
    for (const std::string& f : t) {
      if (std::find(features.begin(), features.end(), f) == features.end()) {
        all = false;
        break;
      }
    }
    if (all) return true;
  }
  return false;
}

}  // namespace schedemu
