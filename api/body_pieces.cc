#include "api/body_pieces.h"

namespace schedemu::api {

void BodyPieces::AddOwn(size_t off, size_t len) {
  if (len == 0) return;
  size_ += len;
  if (!spans_.empty()) {
    Span& last = spans_.back();
    if (last.kind == kOwn && last.off + last.len == off) {
      last.len += len;
      return;
    }
  }
  spans_.push_back({kOwn, off, len, nullptr});
}

void BodyPieces::Append(std::string_view bytes) {
  const size_t before = own_.size();
  own_.append(bytes);
  AddOwn(before, bytes.size());
}

void BodyPieces::AppendStatic(std::string_view literal) {
  if (literal.empty()) return;
  size_ += literal.size();
  spans_.push_back({kStatic, 0, literal.size(), literal.data()});
}

void BodyPieces::AppendShared(const Shared& bytes) {
  if (bytes == nullptr || bytes->empty()) return;
  size_ += bytes->size();
  spans_.push_back({static_cast<int32_t>(held_.size()), 0, bytes->size(), nullptr});
  held_.push_back(bytes);
}

int32_t BodyPieces::Keep(const Shared& bytes) {
  held_.push_back(bytes);
  return static_cast<int32_t>(held_.size() - 1);
}

void BodyPieces::AppendKept(int32_t kept) {
  const Shared& bytes = held_[static_cast<size_t>(kept)];
  if (bytes == nullptr || bytes->empty()) return;
  size_ += bytes->size();
  spans_.push_back({kept, 0, bytes->size(), nullptr});
}

void BodyPieces::AppendPieces(const BodyPieces& other) {
  for (const Span& s : other.spans_) {
    if (s.kind == kOwn) {
      Append(other.View(s));
    } else if (s.kind == kStatic) {
      AppendStatic(other.View(s));
    } else {
      size_ += s.len;
      spans_.push_back({static_cast<int32_t>(held_.size()), s.off, s.len, nullptr});
      held_.push_back(other.held_[static_cast<size_t>(s.kind)]);
    }
  }
}

std::string BodyPieces::Flatten() const {
  std::string out;
  out.reserve(size_);
  ForEach([&](std::string_view v) { out.append(v); });
  return out;
}

void BodyPieces::Clear() {
  own_.clear();
  spans_.clear();
  held_.clear();
  size_ = 0;
}

}  // namespace schedemu::api
