// A response body made of pieces: bytes of its own (small, written per request: an answer's head,
// a time value, separators) and shared immutable bytes (the cached serialised views of
// api/view_cache.h) it points into without copying them. The server sends the pieces with one
// gathered write (server/session.cc: one asio const_buffer per piece after the HTTP head);
// Flatten() is the same body as one string, for every in-process caller.
#ifndef SCHEDEMU_API_BODY_PIECES_H_
#define SCHEDEMU_API_BODY_PIECES_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace schedemu::api {

class BodyPieces {
 public:
  using Shared = std::shared_ptr<const std::string>;

  bool empty() const { return spans_.empty(); }
  size_t size() const { return size_; }  // total bytes

  // Own bytes, copied into the body's own buffer.
  void Append(std::string_view bytes);
  // Own bytes written by `write(std::string&)` straight into the body's own buffer.
  template <typename F>
  void Write(F&& write) {
    const size_t before = own_.size();
    write(own_);
    AddOwn(before, own_.size() - before);
  }
  // Bytes that live as long as the program (literals).
  void AppendStatic(std::string_view literal);
  // A shared piece, kept alive by this body (never copied).
  void AppendShared(const Shared& bytes);
  // A shared piece appended many times (a value repeated in every job of a list): held once by
  // Keep, then appended by AppendKept as a span into it (no reference count per use).
  int32_t Keep(const Shared& bytes);
  void AppendKept(int32_t kept);
  // Every piece of `other` in order: its own bytes copied, its shared pieces shared.
  void AppendPieces(const BodyPieces& other);

  // Calls f(std::string_view) for each non-empty piece in order.
  template <typename F>
  void ForEach(F&& f) const {
    for (const Span& s : spans_) f(View(s));
  }
  std::string Flatten() const;
  void Clear();

 private:
  // kind >= 0: held_[kind]; kOwn: own_ at `off`; kStatic: `ptr`.
  static constexpr int32_t kOwn = -1;
  static constexpr int32_t kStatic = -2;
  struct Span {
    int32_t kind;
    size_t off;
    size_t len;
    const char* ptr;
  };
  void AddOwn(size_t off, size_t len);
  std::string_view View(const Span& s) const {
    if (s.kind == kOwn) return std::string_view(own_).substr(s.off, s.len);
    if (s.kind == kStatic) return std::string_view(s.ptr, s.len);
    return std::string_view(*held_[static_cast<size_t>(s.kind)]).substr(s.off, s.len);
  }

  std::string own_;
  std::vector<Span> spans_;
  std::vector<Shared> held_;
  size_t size_ = 0;
};

}  // namespace schedemu::api

#endif  // SCHEDEMU_API_BODY_PIECES_H_
