// `heptapod train`: trains a model from raw parallel text (see train/trainer.h for what it writes).
// Its options are the table of train_options.h; rerunning the same command resumes.
#include <cstdio>
#include <memory>

#include "commands.h"
#include "heptapod/core/error.h"
#include "heptapod/train/communicator.h"
#include "train_options.h"

namespace heptapod::app {

namespace {

int run_train(const TrainFlags& f) {
  const TrainConfig c = resolve_train_flags(f);
  Communicator& ranks = communicator();
  try {
    const TrainResult r = train(c);
    if (ranks.rank() == 0)
      std::printf("stopped after %ld updates (%s); model: %s%s\n", r.state.step, r.stop_reason.c_str(),
                  r.model_path.c_str(), r.averaged_path.empty() ? "" : ("; averaged: " + r.averaged_path).c_str());
  } catch (const Error& e) {
    if (ranks.size() == 1) throw;
    // The other ranks may be waiting for this one: end them all now, never a hang.
    std::fprintf(stderr, "heptapod: error: rank %d of %d: %s\n", ranks.rank(), ranks.size(), e.what());
    std::fflush(stderr);
    ranks.abort(1);
  }
  return 0;
}

}  // namespace

Runner add_train_command(CLI::App& root) {
  auto* cmd = root.add_subcommand("train", "Train a model from raw parallel text (rerun to resume)");
  auto f = std::make_shared<TrainFlags>();
  add_train_options(cmd, f);
  return [f] { return run_train(*f); };
}

}  // namespace heptapod::app
