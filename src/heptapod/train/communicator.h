// The processes of one training run. A run started by mpirun (OpenMPI) has one rank per process: every rank
// computes its share of each update's micro-batches and the gradients are summed with MPI_Allreduce; rank 0
// alone writes (vocabularies, caches, metrics, checkpoints, models). Without mpirun, or in a build without
// MPI, the run is one process and nothing is communicated.
#pragma once

#include <memory>
#include <string>

#include "heptapod/train/update_step.h"

namespace heptapod {

class Communicator : public GradientReducer {
 public:
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // Waits until every rank arrives.
  virtual void barrier() = 0;
  // Rank 0's value, on every rank.
  virtual int broadcast(int value) = 0;
  // Ends every rank of the run at once (after an error on one of them), with `code`.
  [[noreturn]] virtual void abort(int code) = 0;
};

// The run's communicator: MPI's world when this process was started by mpirun (and MPI is built in),
// else a single process. The first call initialises MPI; it is finalised at exit.
Communicator& communicator();

// Whether this binary was built with MPI ("OpenMPI 4.1.4" or "not built in").
std::string mpi_description();

}  // namespace heptapod
