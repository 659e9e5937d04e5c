// The bearer tokens of both dialects, looked up by the api layer on every authenticated request.
// The api layer mints them (api/jwt.h: service_auth JWTs, OAuth opaque tokens) and stores them
// here by the SHA-256 digest of the token string; the string itself never reaches the model.
#include "scheduler/world.h"

#include <string>
#include <string_view>
#include <utility>

namespace schedemu {

const Token& World::StoreToken(Token token) {
  std::string key = token.digest;
  return tokens_.insert_or_assign(std::move(key), std::move(token)).first->second;
}

const Token* World::FindToken(std::string_view digest) const {
  auto it = tokens_.find(digest);
  return it == tokens_.end() ? nullptr : &it->second;
}

}  // namespace schedemu
