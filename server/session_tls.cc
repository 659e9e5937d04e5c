#include "server/session_impl.h"

namespace schedemu {
template class BasicSession<TlsStream>;
}  // namespace schedemu
