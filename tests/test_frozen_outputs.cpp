// This build makes exactly the bytes an earlier binary recorded in tests/fixtures/frozen
// (tools/make_frozen_fixtures.sh): translations in float32, int8 and bfloat16 with scores, n-best lists with
// alignments, greedy search, per-token scores; generation (sampling, beam, greedy, stop strings, int8,
// Transformer-XL), language-model, Transformer-XL, encoder and classifier scores, embeddings and
// classifications; and training runs (translation with dropout, --accumulate 2, validation, bfloat16 products;
// a language model, Transformer-XL, masked LM, a classifier fine-tuned from an encoder) down to their metrics
// and model files. The MPI run is in tests/mpi.
#include <gtest/gtest.h>

#include "frozen_outputs.h"

namespace heptapod {
namespace {

class FrozenOutputs : public testing::TestWithParam<test::FrozenCommand> {};

TEST_P(FrozenOutputs, AreUnchanged) { test::check_frozen_command(GetParam()); }

std::vector<test::FrozenCommand> single_process_commands() {
  std::vector<test::FrozenCommand> out;
  for (const test::FrozenCommand& c : test::frozen_commands())
    if (c.kind != "mpi2") out.push_back(c);
  return out;
}

INSTANTIATE_TEST_SUITE_P(Commands, FrozenOutputs, testing::ValuesIn(single_process_commands()),
                         [](const testing::TestParamInfo<test::FrozenCommand>& info) {
                           std::string name = info.param.name;
                           for (char& ch : name)
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return name;
                         });

TEST(FrozenOutputsList, HasEveryKindOfCommand) {
  const auto commands = test::frozen_commands();
  ASSERT_GE(commands.size(), 25u);
  int stdout_kind = 0, train = 0, mpi2 = 0;
  for (const auto& c : commands) {
    stdout_kind += c.kind == "stdout";
    train += c.kind == "train";
    mpi2 += c.kind == "mpi2";
  }
  EXPECT_EQ(stdout_kind + train + mpi2, static_cast<int>(commands.size())) << "a command of an unknown kind";
  EXPECT_GE(stdout_kind, 18);
  EXPECT_GE(train, 6);
  EXPECT_EQ(mpi2, 1);
}

}  // namespace
}  // namespace heptapod
