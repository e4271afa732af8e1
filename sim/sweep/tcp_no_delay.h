#pragma once
// Nagle's algorithm off on every TCP connection a process holds. Under mpirun, MPI_Init opens
// PMIx's client connection to the local server, a loopback TCP socket, without TCP_NODELAY
// (Debian's PMIx 4.2); MPI_Finalize then writes it two small messages back to back, and the
// second waited for the server's delayed acknowledgement, 40 ms on Linux (sim/sweep/mpi_sweep.cpp
// calls this after MPI_Init; docs/sweeps.md, "Seventh session").

namespace trainsim {

/// Sets TCP_NODELAY on each of this process's descriptors that is a TCP stream socket (IPv4
/// or IPv6); leaves every other descriptor alone. Returns how many it set.
int no_delay_on_tcp_sockets();

}  // namespace trainsim
