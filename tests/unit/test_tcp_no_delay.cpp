// no_delay_on_tcp_sockets (sim/sweep/tcp_no_delay.h), which an MPI sweep's ranks call after
// MPI_Init: it turns Nagle's algorithm off on the process's TCP connections, both ends of a
// loopback connection here, and leaves a listening TCP socket's peers, UDP and Unix sockets
// alone (they have no such option, or the call must not fail on them).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include "sim/sweep/tcp_no_delay.h"

using namespace trainsim;

namespace {

int no_delay(int fd) {
  int v = -1;
  socklen_t len = sizeof v;
  REQUIRE(::getsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &v, &len) == 0);
  return v;
}

}  // namespace

TEST_CASE("A rank's TCP connections get Nagle's algorithm turned off, nothing else is touched",
          "[sweep][mpi]") {
  // A loopback connection, as PMIx's client has to its local server.
  const int server = ::socket(AF_INET, SOCK_STREAM, 0);
  REQUIRE(server >= 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  REQUIRE(::bind(server, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  REQUIRE(::listen(server, 1) == 0);
  socklen_t len = sizeof addr;
  REQUIRE(::getsockname(server, reinterpret_cast<sockaddr*>(&addr), &len) == 0);
  const int client = ::socket(AF_INET, SOCK_STREAM, 0);
  REQUIRE(client >= 0);
  REQUIRE(::connect(client, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  const int accepted = ::accept(server, nullptr, nullptr);
  REQUIRE(accepted >= 0);
  int pair[2];
  REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM, 0, pair) == 0);
  const int udp = ::socket(AF_INET, SOCK_DGRAM, 0);
  REQUIRE(udp >= 0);

  // Linux leaves Nagle's algorithm on by default: the call is what turns it off.
  CHECK(no_delay(client) == 0);
  CHECK(no_delay(accepted) == 0);
  // The two ends of the connection and the listening socket (a TCP stream socket too).
  CHECK(no_delay_on_tcp_sockets() >= 3);
  CHECK(no_delay(client) == 1);
  CHECK(no_delay(accepted) == 1);
  CHECK(no_delay(server) == 1);
  // The Unix and UDP sockets have no TCP option, and still work.
  int v = 0;
  len = sizeof v;
  CHECK(::getsockopt(pair[0], IPPROTO_TCP, TCP_NODELAY, &v, &len) != 0);
  CHECK(::write(pair[0], "x", 1) == 1);
  char c = 0;
  CHECK(::read(pair[1], &c, 1) == 1);
  CHECK(c == 'x');

  for (int fd : {server, client, accepted, pair[0], pair[1], udp}) ::close(fd);
}
