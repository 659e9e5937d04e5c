// Raw loopback sockets for the transport tests: a client that talks bytes, not HTTP.
#ifndef SCHEDEMU_TESTS_SERVER_RAW_SOCKET_H_
#define SCHEDEMU_TESTS_SERVER_RAW_SOCKET_H_

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>

#include <cstdint>
#include <string>

#include <gtest/gtest.h>

namespace schedemu::testing {

// A connected TCP socket to 127.0.0.1:port with a 5 s receive timeout (`receive_buffer` > 0 sets
// SO_RCVBUF first, to make a slow reader).
inline int ConnectLoopback(int port, int receive_buffer = 0) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (receive_buffer > 0) {
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &receive_buffer, sizeof(receive_buffer));
  }
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
  EXPECT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  timeval tv{5, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  return fd;
}

// Reads until the peer closes (or the 5 s receive timeout passes).
inline std::string ReadUntilClosed(int fd) {
  std::string out;
  char buf[65536];
  for (;;) {
    ssize_t n = recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  return out;
}

}  // namespace schedemu::testing

#endif  // SCHEDEMU_TESTS_SERVER_RAW_SOCKET_H_
