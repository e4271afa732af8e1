#include "sim/sweep/mpi_sweep.h"

#include <stdexcept>

#include "sim/core/error.h"

#ifdef TRAINSIM_HAVE_MPI
#include <mpi.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include "sim/sweep/child_processes.h"
#include "sim/sweep/sweep_run.h"
#include "sim/sweep/tcp_no_delay.h"
#endif

namespace trainsim {

#ifdef TRAINSIM_HAVE_MPI

namespace {
constexpr int kTagRequest = 1;               // worker -> 0: give me a point (payload: nothing)
constexpr int kTagResult = 2;                // worker -> 0: "<index>\n<row>"
constexpr int kTagWork = 3;                  // 0 -> worker: point index, or -1 = no more work
constexpr const char* kStopped = "stopped";  // a result that is none: stopped by Ctrl-C

// Waits for a non-blocking operation without spinning. Open MPI's blocking calls poll a
// core at full speed while they wait; a rank that waits for rank 0 (its next point, the go
// ahead, the end) shares the node's cores with the workers that run the points, and its
// polling took them a tenth of a 60-point sweep's CPU on 2 cores. A tenth of a millisecond
// between tests is nothing against a point's tens.
void wait_quietly(MPI_Request& request) {
  for (;;) {
    int done = 0;
    MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    if (done) return;
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
}

std::string recv_text(int source, int tag, MPI_Status& status) {
  MPI_Probe(source, tag, MPI_COMM_WORLD, &status);
  int n = 0;
  MPI_Get_count(&status, MPI_CHAR, &n);
  std::string text(static_cast<std::size_t>(n), '\0');
  MPI_Recv(text.data(), n, MPI_CHAR, status.MPI_SOURCE, status.MPI_TAG, MPI_COMM_WORLD,
           MPI_STATUS_IGNORE);
  return text;
}
}  // namespace

bool mpi_built() {
  return true;
}

void mpi_start(int& rank, int& size) {
  int started = 0;
  MPI_Initialized(&started);
  // A sweep sends a few bytes a point. Left to choose, Open MPI opens every point-to-point
  // layer it has (UCX, libfabric) to pick one, which took 0.2 s of each run's start here,
  // about a sixth of a 60-point sweep on 2 ranks; ob1 (shared memory, TCP) reaches every
  // node a sweep runs on. A user's own OMPI_MCA_pml wins (no overwrite). Likewise PMIx's
  // client reads the job's data from its local server's messages (`hash`) rather than
  // attaching the server's shared-memory store: a sweep's job is a few ranks, and attaching
  // took half of MPI_Init here (22 -> 11 ms a rank).
  // Funneled: rank 0 renders the featured pages on threads of its own while its main thread
  // finalizes MPI (cmd_sweep.cpp); only the main thread calls MPI.
  if (!started) {
    ::setenv("OMPI_MCA_pml", "ob1", 0);
    ::setenv("PMIX_MCA_gds", "hash", 0);
    int provided = 0;
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
    // PMIx's connection to its server is open now (sim/sweep/tcp_no_delay.h).
    no_delay_on_tcp_sockets();
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
}

void mpi_stop() {
  int started = 0, finished = 0;
  MPI_Initialized(&started);
  MPI_Finalized(&finished);
  if (started && !finished) {
    // MPI_Finalize waits for every rank, polling; a rank that ends first waits here instead.
    MPI_Request all_here;
    MPI_Ibarrier(MPI_COMM_WORLD, &all_here);
    wait_quietly(all_here);
    MPI_Finalize();
  }
}

bool mpi_agree(bool ok) {
  int flag = ok ? 1 : 0;
  MPI_Request sent;
  MPI_Ibcast(&flag, 1, MPI_INT, 0, MPI_COMM_WORLD, &sent);
  wait_quietly(sent);
  return flag != 0;
}

void mpi_run_points(const SweepSpec& spec, const PointList& points, Pending& pending,
                    const std::string& dir, const PointRun& how, WorkerPool& pool,
                    const std::function<void(std::size_t, const SweepRow&)>& on_row) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  // Every rank runs its points in one worker process of its own (`pool`), point after point.
  if (rank != 0) {
    // A worker: ask, run, answer, until told there is no more work. It asks for its next
    // point as soon as it starts one, so that the answer (rank 0 looks for messages every
    // 2 ms while its own point runs) is there when the point ends.
    long long next = -1;
    MPI_Request asked;
    auto ask = [&] {
      MPI_Send(nullptr, 0, MPI_CHAR, 0, kTagRequest, MPI_COMM_WORLD);
      MPI_Irecv(&next, 1, MPI_LONG_LONG, 0, kTagWork, MPI_COMM_WORLD, &asked);
    };
    // Results go out without waiting for rank 0 to take them. A blocking send of a result
    // (about 270 bytes, above what Open MPI's shared-memory transport sends inline) returns
    // only once rank 0 has read it, which it does between its own polls: this rank spun
    // about a millisecond a point before it could start its next one (32-40 ms of CPU and
    // of its lane's time in a 60-point sweep on 2 ranks). The text stays here until the
    // send is done; the next result, and the end, wait for it.
    std::string sending;
    MPI_Request sent = MPI_REQUEST_NULL;
    auto answer = [&](std::string text) {
      if (sent != MPI_REQUEST_NULL) wait_quietly(sent);
      sending = std::move(text);
      MPI_Isend(sending.data(), static_cast<int>(sending.size()), MPI_CHAR, 0, kTagResult,
                MPI_COMM_WORLD, &sent);
    };
    ask();
    for (;;) {
      wait_quietly(asked);
      const long long index = next;
      if (index < 0) {
        if (sent != MPI_REQUEST_NULL) wait_quietly(sent);
        return;
      }
      if (sweep_interrupts() > 0) {
        // Handed out before the stop and not started: it runs next time (no files yet).
        ask();
        answer(std::to_string(index) + "\n" + kStopped);
        continue;
      }
      const SweepPoint p = points.at(static_cast<std::size_t>(index));
      pool.submit(point_command(spec, p, dir, how), point_stderr(p, dir), 0);
      ask();
      ChildExit ex;
      pool.wait_one(ex);
      // Stopped by a second Ctrl-C: not a result; the point runs again next time.
      const bool stopped = sweep_interrupts() >= 2 && ex.exit_code != 0;
      if (stopped) clear_point(dir, p);
      answer(std::to_string(index) + "\n" +
             (stopped ? std::string(kStopped) : encode_row(finish_point(p, dir, ex.exit_code))));
    }
  }
  // Rank 0: serve requests and run points of its own in between, polling both.
  std::size_t finished = 0;
  int stopped_workers = 0;
  std::size_t own_index = 0;
  bool idle = false;
  while (finished < pending.total() || stopped_workers < size - 1) {
    // After a pass that found nothing to do, wait a little: for this rank's own point, which
    // ends the wait as soon as it ends, or else for the other ranks' messages.
    const int wait_ms = idle ? 2 : 0;
    idle = true;
    if (pool.running() == 0 && sweep_interrupts() == 0 && pending.take(own_index, 0)) {
      const SweepPoint p = points.at(own_index);
      pool.submit(point_command(spec, p, dir, how), point_stderr(p, dir), 0);
      idle = false;
    }
    if (wait_ms > 0 && pool.running() == 0)
      std::this_thread::sleep_for(std::chrono::milliseconds(wait_ms));
    ChildExit ex;
    if (pool.try_wait(ex, pool.running() > 0 ? wait_ms : 0)) {
      const SweepPoint p = points.at(own_index);
      if (sweep_interrupts() >= 2 && ex.exit_code != 0)
        clear_point(dir, p);
      else
        on_row(own_index, finish_point(p, dir, ex.exit_code));
      ++finished;
      idle = false;
    }
    int flag = 0;
    MPI_Status status;
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &status);
    if (flag) {
      idle = false;
      if (status.MPI_TAG == kTagRequest) {
        MPI_Recv(nullptr, 0, MPI_CHAR, status.MPI_SOURCE, kTagRequest, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
        long long index = -1;
        std::size_t k = 0;
        // Each rank is a lane of its own: it runs runs of consecutive points (Pending).
        if (sweep_interrupts() == 0 && pending.take(k, static_cast<std::size_t>(status.MPI_SOURCE)))
          index = static_cast<long long>(k);
        if (index < 0) ++stopped_workers;
        MPI_Send(&index, 1, MPI_LONG_LONG, status.MPI_SOURCE, kTagWork, MPI_COMM_WORLD);
      } else {
        const std::string text = recv_text(status.MPI_SOURCE, kTagResult, status);
        const std::size_t nl = text.find('\n');
        const std::size_t index = std::stoull(text.substr(0, nl));
        if (text.substr(nl + 1) != kStopped)
          on_row(index, decode_row(text.substr(nl + 1), points.at(index)));
        ++finished;
      }
    }
    // Interrupted: what was handed out still finishes; nothing new starts.
    if (sweep_interrupts() > 0 && pending.untaken() > 0) {
      finished += pending.untaken();  // counted as settled: they stay unfinished on disk
      pending.drop();
    }
  }
}

#else  // built without MPI

bool mpi_built() {
  return false;
}
void mpi_start(int&, int&) {
  throw UserError(
      "sweep --mpi: this trainsim was built without MPI (install openmpi-bin and "
      "libopenmpi-dev, as tools/setup.sh does, and rebuild)");
}
void mpi_stop() {}
bool mpi_agree(bool ok) {
  return ok;
}
void mpi_run_points(const SweepSpec&, const PointList&, Pending&, const std::string&,
                    const PointRun&, WorkerPool&,
                    const std::function<void(std::size_t, const SweepRow&)>&) {
  throw std::logic_error("mpi_run_points without MPI");
}

#endif

}  // namespace trainsim
