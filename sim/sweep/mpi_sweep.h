#pragma once
// `trainsim sweep --mpi` under mpirun: rank 0 hands points out one at a time to whichever
// rank asks (dynamic: a slow point does not hold up the others) and runs points itself in
// between; every rank runs its points in a worker process (sim/sweep/worker_pool.h), as the
// local pool does, and
// returns the point's row to rank 0, which alone writes sweep.csv. Built only when CMake
// finds MPI (Debian's Open MPI: openmpi-bin, libopenmpi-dev, installed by tools/setup.sh).
#include <functional>
#include <string>
#include <vector>

#include "sim/sweep/sweep_run.h"
#include "sim/sweep/sweep_table.h"
#include "sim/sweep/worker_pool.h"

namespace trainsim {

/// Whether this trainsim was built with MPI.
bool mpi_built();

/// MPI_Init (once; other threads may run, only the calling one calls MPI) and this
/// process's rank and the number of ranks.
void mpi_start(int& rank, int& size);
/// Waits for every rank, then MPI_Finalize; nothing after it (a second call) does anything.
void mpi_stop();
/// Rank 0 tells the others whether preparing the sweep worked (they exit quietly if not).
bool mpi_agree(bool ok);
/// Runs the points rank 0's `pending` holds (positions in `points`) over every rank; the
/// other ranks' `pending` is not read (rank 0 sends them positions). On rank 0, `on_row` is
/// called for each finished point (in the order they finish) with its position (`how`: how
/// each point runs, point_command); other ranks
/// return when there is no more work. Each rank runs its points in `pool`, a pool of one
/// worker (its own; its worker retires after the pool's points per worker).
void mpi_run_points(const SweepSpec& spec, const PointList& points, Pending& pending,
                    const std::string& dir, const PointRun& how, WorkerPool& pool,
                    const std::function<void(std::size_t, const SweepRow&)>& on_row);

}  // namespace trainsim
