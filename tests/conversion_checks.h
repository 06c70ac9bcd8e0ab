// Shared checks of `heptapod convert` on a checkpoint fixture: the converted model file beside the fixture's
// reference, its training gradients against the reference's, and a copy of the fixture changed, with the refusal
// that must follow.
#pragma once

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "heptapod/io/atomic_file.h"
#include "heptapod/io/model_file.h"
#include "test_process.h"
#include "test_util.h"

namespace heptapod::test {

// Fixture `family` converted with `--from from` into `dir`: the model file, the fixture's reference.safetensors,
// and the model loaded.
struct ConvertedFixture {
  std::string path;
  SafetensorsFile reference;
  std::unique_ptr<Transformer<float>> model;
};

inline ConvertedFixture convert_fixture(const std::string& family, const std::string& from, TempDir& dir) {
  const std::string output = dir.file(family + ".htp");
  std::string log;
  EXPECT_EQ(run_heptapod("convert " + quoted(fixture(family)) + " --from " + from + " -o " + quoted(output), dir, log),
            0)
      << log;
  return {output, SafetensorsFile::read(fixture(family) + "/reference.safetensors"), load_model(output)};
}

// Every tensor's gradient in `p` against the reference's (`expect`, in p's layout): within 1e-4 of the largest.
inline void expect_gradients(const ParameterStore<float>& p, const std::vector<float>& expect, const std::string& what) {
  double scale = 0;
  for (float g : expect) scale = std::max(scale, static_cast<double>(std::abs(g)));
  for (std::size_t i = 0; i < p.specs().size(); ++i) {
    const std::size_t off = p.offset(i), n = static_cast<std::size_t>(p.specs()[i].numel());
    EXPECT_LT(max_rel_error(p.grads() + off, expect.data() + off, n, 1e-3 * scale), 1e-4)
        << what << " gradient of " << p.specs()[i].name;
  }
}

// One training step of a converted `model` on the reference's `batch` with the reference's label smoothing: the
// loss within 1e-5 and every gradient within 1e-4 of the reference's, read in the model's layout by `import`
// (the converter's own name table, reference_gradients). Returns the step's options (for further steps).
inline StepOptions expect_reference_training_step(
    Transformer<float>& model, const Batch& batch, const SafetensorsFile& ref, const std::string& family,
    TempDir& dir, Arena& arena,
    const std::function<std::unique_ptr<Transformer<float>>(const std::string& dir)>& import) {
  StepOptions opt;
  opt.label_smoothing = std::stof(ref.metadata("label_smoothing"));
  arena.reset();
  ParameterStore<float>& p = model.parameters();
  p.zero_grads();
  const LossTotals totals = model.forward_backward(batch, opt, arena);
  const double expect_loss = ref.floats<double>("expect/loss")[0];
  EXPECT_NEAR(totals.loss / totals.tokens, expect_loss, 1e-5 * expect_loss) << family << " loss";
  expect_gradients(p, reference_gradients(fixture(family), ref, dir.file(family + "-grads"), import), family);
  return opt;
}

// A copy of fixture `family` changed by `change` (given the copy's directory), converted with `--from from`:
// the log of its refusal, which must write no output.
inline std::string refused_conversion(const std::string& family, const std::string& from,
                                      const std::function<void(const std::string& dir)>& change) {
  TempDir dir;
  const std::string copy = dir.file(family);
  std::filesystem::copy(fixture(family), copy);
  change(copy);
  std::string log;
  EXPECT_NE(run_heptapod("convert " + quoted(copy) + " --from " + from + " -o " + quoted(dir.file("out.htp")), dir, log),
            0)
      << log;
  EXPECT_FALSE(std::filesystem::exists(dir.file("out.htp"))) << "a refused conversion wrote its output";
  return log;
}

// A change of a checkpoint directory: its config.json's object changed by `edit`.
inline std::function<void(const std::string&)> config_edit(const std::function<void(nlohmann::json&)>& edit) {
  return [edit](const std::string& dir) {
    nlohmann::json j = nlohmann::json::parse(read_file(dir + "/config.json"));
    edit(j);
    write_file_atomic(dir + "/config.json", [&](std::ostream& out) { out << j.dump(); });
  };
}

}  // namespace heptapod::test
