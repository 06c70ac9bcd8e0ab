// MPI's world, or one process.
#include "heptapod/train/communicator.h"

#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <limits>
#include <mutex>
#include <thread>

#include "heptapod/core/error.h"

#ifdef HEPTAPOD_WITH_MPI
#include <mpi.h>
#endif

namespace heptapod {

namespace {

class SingleProcess : public Communicator {
 public:
  void sum(float*, std::size_t) override {}
  void sum(double*, std::size_t) override {}
  int rank() const override { return 0; }
  int size() const override { return 1; }
  void barrier() override {}
  int broadcast(int value) override { return value; }
  [[noreturn]] void abort(int code) override { std::exit(code); }
};

#ifdef HEPTAPOD_WITH_MPI
void check(int rc, const char* what) {
  if (rc != MPI_SUCCESS) throw Error(std::string("MPI: ") + what + " failed");
}

// Sums started by start_sum() run in order on one thread of their own (the only thread calling MPI while
// any are pending: MPI_THREAD_SERIALIZED), while the caller's backward pass goes on.
class MpiWorld : public Communicator {
 public:
  MpiWorld() {
    int provided = MPI_THREAD_SINGLE;
    check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided), "MPI_Init_thread");
    background_ = provided >= MPI_THREAD_SERIALIZED;
    // A rank that cannot reach another (it died) fails its call instead of the library's default abort,
    // so the error names what happened; mpirun then ends the rest.
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    std::atexit([] {
      int finalized = 0;
      MPI_Finalized(&finalized);
      if (!finalized) MPI_Finalize();
    });
  }
  ~MpiWorld() override {
    if (!worker_.joinable()) return;
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    changed_.notify_all();
    worker_.join();
  }
  void sum(float* v, std::size_t n) override { reduce(v, n, MPI_FLOAT); }
  void sum(double* v, std::size_t n) override { reduce(v, n, MPI_DOUBLE); }
  void start_sum(float* v, std::size_t n) override {
    if (!background_) return sum(v, n);
    if (!worker_.joinable()) worker_ = std::thread([this] { run_sums(); });
    {
      std::lock_guard lock(mutex_);
      pending_.push_back({v, n});
    }
    changed_.notify_all();
  }
  void finish_sums() override {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return pending_.empty() && !busy_; });
    if (!failure_.empty()) throw Error(failure_);
  }
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  void barrier() override { check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier (a rank has stopped)"); }
  int broadcast(int value) override {
    check(MPI_Bcast(&value, 1, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Bcast (a rank has stopped)");
    return value;
  }
  [[noreturn]] void abort(int code) override {
    MPI_Abort(MPI_COMM_WORLD, code);
    std::exit(code);
  }

 private:
  void reduce(void* v, std::size_t n, MPI_Datatype type) {
    // In pieces of at most 2^30 elements (MPI counts are int).
    const std::size_t piece = std::size_t{1} << 30;
    const std::size_t bytes = type == MPI_FLOAT ? sizeof(float) : sizeof(double);
    for (std::size_t at = 0; at < n; at += piece) {
      const int count = static_cast<int>(std::min(piece, n - at));
      check(MPI_Allreduce(MPI_IN_PLACE, static_cast<char*>(v) + at * bytes, count, type, MPI_SUM, MPI_COMM_WORLD),
            "MPI_Allreduce of the gradients (a rank has stopped)");
    }
  }
  void run_sums() {
    std::unique_lock lock(mutex_);
    for (;;) {
      changed_.wait(lock, [&] { return stopping_ || !pending_.empty(); });
      if (pending_.empty()) return;
      const Piece piece = pending_.front();
      pending_.pop_front();
      busy_ = true;
      const bool failed = !failure_.empty();
      lock.unlock();
      std::string error;
      if (!failed) {  // after a failure the rest are dropped; finish_sums() reports it
        try {
          reduce(piece.values, piece.count, MPI_FLOAT);
        } catch (const Error& e) {
          error = e.what();
        }
      }
      lock.lock();
      busy_ = false;
      if (!error.empty()) failure_ = error;
      changed_.notify_all();
    }
  }

  struct Piece {
    float* values;
    std::size_t count;
  };
  int rank_ = 0, size_ = 1;
  bool background_ = false;  // MPI allows a thread of its own for the sums
  std::thread worker_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Piece> pending_;
  bool busy_ = false, stopping_ = false;
  std::string failure_;  // the first failed sum's error
};

bool started_by_mpirun() {
  return std::getenv("OMPI_COMM_WORLD_SIZE") || std::getenv("PMIX_RANK") || std::getenv("PMI_RANK");
}
#endif

}  // namespace

Communicator& communicator() {
#ifdef HEPTAPOD_WITH_MPI
  if (started_by_mpirun()) {
    static MpiWorld world;
    return world;
  }
#endif
  static SingleProcess single;
  return single;
}

std::string mpi_description() {
#ifdef HEPTAPOD_WITH_MPI
  char version[MPI_MAX_LIBRARY_VERSION_STRING];
  int length = 0;
  MPI_Get_library_version(version, &length);
  std::string text(version, static_cast<std::size_t>(length));
  const std::size_t comma = text.find(',');
  return comma == std::string::npos ? text : text.substr(0, comma);
#else
  return "not built in";
#endif
}

}  // namespace heptapod
