// MPI's world, or one process.
#include "heptapod/train/communicator.h"

#include <cstdlib>
#include <limits>

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

class MpiWorld : public Communicator {
 public:
  MpiWorld() {
    check(MPI_Init(nullptr, nullptr), "MPI_Init");
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
  void sum(float* v, std::size_t n) override { reduce(v, n, MPI_FLOAT); }
  void sum(double* v, std::size_t n) override { reduce(v, n, MPI_DOUBLE); }
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
  int rank_ = 0, size_ = 1;
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
