// Random single damages to every file of small Parquet and ORC tables (tests/fuzz/
// table_corruption.h): each read of each snapshot must end in a clean error or in exactly the
// original rows. A crash fails the binary, a hang fails ctest's timeout. FRESHET_CORRUPTION_ROUNDS
// sets the damages per file (default 12), FRESHET_CORRUPTION_SEED the seed (default: random,
// printed).
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <random>

#include "fuzz/table_corruption.h"
#include "testing/test_util.h"

namespace freshet::fuzz {
namespace {

int64_t EnvOr(const char* name, int64_t fallback) {
  const char* value = std::getenv(name);
  return value ? std::strtoll(value, nullptr, 10) : fallback;
}

struct KindStats {
  int64_t damages = 0;
  int64_t failed_reads = 0;
  int64_t intact_reads = 0;
  int64_t changed_values = 0;
};

TEST(CorruptedTableTest, EveryDamageEndsInAnErrorOrTheOriginalRows) {
  freshet::testing::TempDir dir;
  ASSERT_OK_AND_ASSIGN(auto subject, CorruptionSubject::Make(dir.path()));
  const int64_t rounds = EnvOr("FRESHET_CORRUPTION_ROUNDS", 12);
  const uint64_t seed =
      static_cast<uint64_t>(EnvOr("FRESHET_CORRUPTION_SEED", std::random_device()()));
  std::cout << "seed " << seed << " (FRESHET_CORRUPTION_SEED), " << rounds << " damages per file, "
            << subject->files().size() << " files" << std::endl;  // flushed: a crash keeps it
  std::mt19937_64 random(seed);

  std::map<std::string, KindStats> stats;
  for (size_t index = 0; index < subject->files().size(); ++index) {
    const SubjectFile& file = subject->files()[index];
    for (int64_t round = 0; round < rounds; ++round) {
      Mutation mutation;
      mutation.kind = static_cast<Mutation::Kind>(random() % 6);
      mutation.offset = static_cast<uint32_t>(random());
      mutation.value = static_cast<uint8_t>(random());
      DamageReport report = subject->CheckReplaced(index, ApplyMutation(file.content, mutation));
      EXPECT_EQ(report.violation, "") << DescribeMutation(mutation, file.content.size()) << " of "
                                      << file.kind << " file " << file.path;
      KindStats& kind = stats[file.kind];
      ++kind.damages;
      kind.failed_reads += report.failed_reads;
      kind.intact_reads += report.intact_reads;
      kind.changed_values += report.changed_values;
    }
  }
  for (const auto& [kind, counts] : stats) {
    std::cout << kind << ": " << counts.damages << " damages; reads: " << counts.failed_reads
              << " ended in an error, " << counts.intact_reads << " returned the original rows, "
              << counts.changed_values << " returned other values (ORC: no checksums)\n";
  }
}

}  // namespace
}  // namespace freshet::fuzz
