#include "server/session_impl.h"

namespace schedemu {
template class BasicSession<boost::beast::tcp_stream>;
}  // namespace schedemu
