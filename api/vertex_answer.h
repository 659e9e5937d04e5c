// Which fields the Vertex callSlurmRestApi envelope answers with. Google's page exists in two
// generations: the older one (and its translations) reads Slurm's answer from `structuredBody`, an
// object; the current one reads `body`, the same answer as a JSON string. By default both fields
// are sent so a client written from either page works; a scenario ($.vertex.envelope_answer) or
// `serve --envelope-answer` keeps one form only. It lives on the common floor because the scenario
// reader, the server's flags and the envelope (api/vertex/routes.cc) all name it.
#ifndef SCHEDEMU_API_VERTEX_ANSWER_H_
#define SCHEDEMU_API_VERTEX_ANSWER_H_

#include <optional>
#include <string_view>

namespace schedemu::api {

enum class VertexAnswerForm {
  kBoth,        // "both": status, body (string) and structuredBody (object)
  kStructured,  // "structured": status and structuredBody, as the older page documents
  kBody,        // "body": status and body, as the current page documents
};

// The accepted names, for error messages.
inline constexpr char kVertexAnswerFormNames[] = "\"both\", \"structured\" or \"body\"";

inline std::optional<VertexAnswerForm> ParseVertexAnswerForm(std::string_view name) {
  if (name == "both") return VertexAnswerForm::kBoth;
  if (name == "structured") return VertexAnswerForm::kStructured;
  if (name == "body") return VertexAnswerForm::kBody;
  return std::nullopt;
}

}  // namespace schedemu::api

#endif  // SCHEDEMU_API_VERTEX_ANSWER_H_
