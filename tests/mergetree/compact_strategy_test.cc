// The compaction strategy of primary-key tables: Java Paimon's own test cases
// (UniversalCompactionTest, ForceUpLevel0CompactionTest, EarlyFullCompactionTest, OffPeakHoursTest,
// LevelsTest) carried over as data, then the options, the helpers around a pick, and a randomized
// run of picks and rewrites checked against the invariants the merge tree relies on.
#include "mergetree/compact/compact_strategy.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <ctime>
#include <map>
#include <random>
#include <set>

#include "mergetree/compact/levels.h"
#include "meta/row/binary_row.h"
#include "testing/test_util.h"

namespace freshet::mergetree::compact {
namespace {

using Sizes = std::vector<int64_t>;

// ---------------------------------------------------------------------------------------------
// Helpers

meta::DataFileMeta File(int64_t size) {
  static int counter = 0;
  meta::DataFileMeta file;
  file.file_name = "f-" + std::to_string(counter++);
  file.file_size = size;
  file.row_count = 1;
  return file;
}

LevelSortedRun OneFileRun(int level, int64_t size) {
  meta::DataFileMeta file = File(size);
  file.level = level;
  return LevelSortedRun{level, SortedRun{{file}}};
}

// One run per (level, size).
std::vector<LevelSortedRun> Runs(const std::vector<std::pair<int, int64_t>>& levels_and_sizes) {
  std::vector<LevelSortedRun> runs;
  for (auto [level, size] : levels_and_sizes) runs.push_back(OneFileRun(level, size));
  return runs;
}

std::vector<LevelSortedRun> Level0(const Sizes& sizes) {
  std::vector<LevelSortedRun> runs;
  for (int64_t size : sizes) runs.push_back(OneFileRun(0, size));
  return runs;
}

Sizes FileSizes(const CompactUnit& unit) {
  Sizes sizes;
  for (const auto& file : unit.files) sizes.push_back(file.file_size);
  return sizes;
}

int64_t Sum(const Sizes& sizes) {
  int64_t total = 0;
  for (int64_t size : sizes) total += size;
  return total;
}

// Java's UniversalCompactionTest.ofTesting.
UniversalCompaction Universal(int max_size_amp, int size_ratio, int trigger) {
  return UniversalCompaction(max_size_amp, size_ratio, trigger);
}

std::string Key(int32_t value) {
  return meta::SerializeBinaryRow(
      *meta::BuildBinaryRow({meta::DataType::Int()}, {meta::Value::Int(value)}));
}

std::vector<meta::DataTypePtr> IntKey() { return {meta::DataType::Int()}; }

meta::DataFileMeta KeyedFile(std::string name, int level, int32_t min, int32_t max,
                             int64_t max_sequence = 1, int64_t size = 1) {
  meta::DataFileMeta file;
  file.file_name = std::move(name);
  file.file_size = size;
  file.row_count = 1;
  file.min_key = Key(min);
  file.max_key = Key(max);
  file.max_sequence_number = max_sequence;
  file.level = level;
  return file;
}

std::vector<std::string> Names(const std::vector<meta::DataFileMeta>& files) {
  std::vector<std::string> names;
  for (const auto& file : files) names.push_back(file.file_name);
  return names;
}

// ---------------------------------------------------------------------------------------------
// UniversalCompactionTest

TEST(UniversalCompactionTest, OutputLevel) {
  // testOutputLevel: runs at levels 0, 0, 1, 3, 4 with max level 5.
  UniversalCompaction compaction = Universal(25, 1, 3);
  auto runs = Runs({{0, 1}, {0, 1}, {1, 1}, {3, 1}, {4, 1}});
  const std::vector<std::pair<int, int>> run_count_to_output = {
      {1, 1}, {2, 1}, {3, 2}, {4, 3}, {5, 5}};
  for (auto [run_count, output_level] : run_count_to_output) {
    SCOPED_TRACE(run_count);
    EXPECT_EQ(compaction.CreateUnit(runs, 5, run_count).output_level, output_level);
  }
}

// A pick of Java's tests: the strategy, the runs, and what Java asserts of the result.
struct PickCase {
  const char* name;
  bool force_up_level_0;  // ForceUpLevel0Compaction around the universal compaction
  int max_size_amp;
  int size_ratio;
  int trigger;
  int num_levels;
  std::vector<std::pair<int, int64_t>> runs;  // (level, size)
  bool picked;
  Sizes sizes;            // the picked files' sizes; empty: not asserted
  int file_count = -1;    // -1: not asserted
  int output_level = -1;  // -1: not asserted
};

TEST(UniversalCompactionTest, PicksOfJavasTests) {
  // clang-format off
  const std::vector<PickCase> cases = {
      // name                             force  amp ratio trig levels  runs (level, size)
      // testPick
      {"size amplification",              false, 25,  1, 3, 3, {{0, 1}, {0, 2}, {0, 3}, {0, 3}},
       true, {1, 2, 3, 3}},
      {"size ratio",                      false, 25,  1, 3, 4, {{0, 1}, {1, 1}, {2, 1}, {3, 50}},
       true, {1, 1, 1}},
      {"file num, then size ratio",       false, 25,  1, 3, 4, {{0, 1}, {1, 2}, {2, 3}, {3, 50}},
       true, {1, 2, 3}},
      // testNoOutputLevel0
      {"no output level 0 (1)",           false, 25,  1, 3, 3, {{0, 1}, {0, 1}, {1, 1}, {2, 50}},
       true, {1, 1, 1}},
      {"no output level 0 (2)",           false, 25,  1, 3, 3, {{0, 1}, {0, 2}, {1, 3}, {2, 50}},
       true, {1, 2, 3}},
      // testFileNumCompactionConsidersLevel2
      {"file num considers level 2",      false, 200, 1, 3, 3,
       {{0, 10}, {0, 20}, {1, 97}, {2, 100}},
       true, {}, 4, 2},
      // testExtremeCaseNoOutputLevel0
      {"extreme case, no output level 0", false, 200, 1, 5, 6,
       {{0, 1}, {0, 1}, {0, 1}, {0, 1024}, {0, 1024 * 1024}},
       true, {1, 1, 1, 1024, 1024 * 1024}, -1, 5},
      // testLookup
      {"lookup: level 0 to max level",    true,  25,  1, 3, 3, {{0, 1}, {0, 2}, {0, 2}, {0, 2}},
       true, {1, 2, 2, 2}, -1, 2},
      {"lookup: level 0 force pick",      true,  25,  1, 3, 3, {{0, 1}, {1, 2}, {2, 2}},
       true, {1, 2, 2}, -1, 2},
      {"lookup: level 0 to empty level",  true,  25,  1, 3, 3, {{0, 1}, {2, 2}},
       true, {1}, -1, 1},
      // ForceUpLevel0CompactionTest.testForceCompaction0
      {"force 0: two level-0 runs",       true,  200, 1, 5, 3, {{0, 1}, {0, 1}},
       true, {}, -1, 2},
      {"force 0: level 0 and 1",          true,  200, 1, 5, 3, {{0, 1}, {1, 10}},
       true, {}, -1, 2},
      {"force 0: up to level 2",          true,  200, 1, 5, 3, {{0, 1}, {0, 5}, {2, 10}},
       true, {}, -1, 1},
      {"force 0: top level only",         true,  200, 1, 5, 3, {{2, 10}},
       false, {}},
      {"force 0: four level-0 runs",      true,  200, 1, 5, 3, {{0, 1}, {0, 5}, {0, 10}, {0, 20}},
       true, {}, -1, 2},
      // ForceUpLevel0CompactionTest.testForceCompaction0ConsidersLevel2
      {"force 0 considers level 2",       true,  200, 1, 5, 3, {{0, 1}, {1, 99}, {2, 100}},
       true, {}, 3, 2},
      {"force 0 stops before level 2",    true,  200, 1, 5, 3, {{0, 1}, {1, 99}, {2, 102}},
       true, {}, 2, 1},
  };
  // clang-format on
  for (const PickCase& c : cases) {
    SCOPED_TRACE(c.name);
    UniversalCompaction universal = Universal(c.max_size_amp, c.size_ratio, c.trigger);
    std::unique_ptr<CompactStrategy> strategy =
        c.force_up_level_0 ? std::unique_ptr<CompactStrategy>(
                                 std::make_unique<ForceUpLevel0Compaction>(universal, std::nullopt))
                           : std::make_unique<UniversalCompaction>(universal);
    auto unit = strategy->Pick(c.num_levels, Runs(c.runs));
    ASSERT_EQ(unit.has_value(), c.picked);
    if (!unit) continue;
    if (!c.sizes.empty()) {
      EXPECT_EQ(FileSizes(*unit), c.sizes);
    }
    if (c.file_count >= 0) {
      EXPECT_EQ(static_cast<int>(unit->files.size()), c.file_count);
    }
    if (c.output_level >= 0) {
      EXPECT_EQ(unit->output_level, c.output_level);
    }
    EXPECT_FALSE(unit->file_rewrite);
  }
}

TEST(UniversalCompactionTest, OptimizedCompactionInterval) {
  int64_t now = 0;
  UniversalCompaction compaction(
      100, 1, 3,
      EarlyFullCompaction(1000, std::nullopt, std::nullopt, std::nullopt, [&now] { return now; }));
  struct Step {
    int64_t now;
    Sizes sizes;  // runs at levels 0, 1, 2
    std::optional<Sizes> picked;
  };
  const std::vector<Step> steps = {
      {0, {1, 3, 5}, Sizes{1, 3, 5}},     // the first pick compacts fully
      {1001, {1, 3, 5}, Sizes{1, 3, 5}},  // the interval passed
      {1001, {1, 3, 5}, std::nullopt},    // it did not
      {1500, {3, 3, 5}, Sizes{3, 3, 5}},  // size amplification, which counts as a full compaction
      {2001, {1, 3, 5}, std::nullopt},    // so the interval has not passed
  };
  for (const Step& step : steps) {
    SCOPED_TRACE(step.now);
    now = step.now;
    auto unit =
        compaction.Pick(3, Runs({{0, step.sizes[0]}, {1, step.sizes[1]}, {2, step.sizes[2]}}));
    ASSERT_EQ(unit.has_value(), step.picked.has_value());
    if (unit) {
      EXPECT_EQ(FileSizes(*unit), *step.picked);
    }
  }
}

TEST(UniversalCompactionTest, TotalSizeThreshold) {
  UniversalCompaction compaction(100, 1, 3, EarlyFullCompaction(std::nullopt, 10, std::nullopt));
  auto unit = compaction.Pick(3, Runs({{0, 1}, {1, 3}, {2, 5}}));
  ASSERT_TRUE(unit.has_value());
  EXPECT_EQ(FileSizes(*unit), (Sizes{1, 3, 5}));
  EXPECT_FALSE(compaction.Pick(3, Runs({{0, 2}, {1, 6}, {2, 10}})).has_value());
  EXPECT_FALSE(compaction.Pick(3, Runs({{3, 5}})).has_value());  // one sorted run
}

// Java's appendAndPickForSizeAmp: a new run of size 1 in front, then PickForSizeAmp over level-0
// runs; a pick becomes one run of their total.
Sizes AppendAndPickForSizeAmp(UniversalCompaction& compaction, Sizes sizes) {
  sizes.insert(sizes.begin(), 1);
  auto unit = compaction.PickForSizeAmp(3, Level0(sizes));
  return unit ? Sizes{Sum(FileSizes(*unit))} : sizes;
}

TEST(UniversalCompactionTest, SizeAmplification) {
  UniversalCompaction compaction = Universal(25, 0, 1);
  const std::vector<Sizes> expected = {
      {2},  {3},     {4},        {1, 4}, {6},     {1, 6},     {8},           {1, 8}, {1, 1, 8},
      {11}, {1, 11}, {1, 1, 11}, {14},   {1, 14}, {1, 1, 14}, {1, 1, 1, 14}, {18}};
  Sizes sizes = {1};
  for (const Sizes& next : expected) {
    sizes = AppendAndPickForSizeAmp(compaction, sizes);
    ASSERT_EQ(sizes, next);
  }
}

// Java's pickForSizeRatio: run i at level i, PickForSizeRatio with max level = the run count; a
// pick is replaced by one run of its total in front (the picked sizes removed by value).
Sizes PickForSizeRatio(UniversalCompaction& compaction, const Sizes& sizes) {
  std::vector<LevelSortedRun> runs;
  for (size_t i = 0; i < sizes.size(); ++i)
    runs.push_back(OneFileRun(static_cast<int>(i), sizes[i]));
  auto unit = compaction.PickForSizeRatio(static_cast<int>(sizes.size()), runs);
  if (!unit) return sizes;
  Sizes rest = sizes;
  for (int64_t size : FileSizes(*unit)) rest.erase(std::find(rest.begin(), rest.end(), size));
  rest.insert(rest.begin(), Sum(FileSizes(*unit)));
  return rest;
}

TEST(UniversalCompactionTest, SizeRatio) {
  UniversalCompaction compaction = Universal(25, 1, 5);
  const std::vector<Sizes> expected = {
      {5},          {1, 5},        {1, 1, 5},     {1, 1, 1, 5},     {4, 5},          {1, 4, 5},
      {1, 1, 4, 5}, {3, 4, 5},     {1, 3, 4, 5},  {2, 3, 4, 5},     {1, 2, 3, 4, 5}, {16},
      {1, 16},      {1, 1, 16},    {1, 1, 1, 16}, {4, 16},          {1, 4, 16},      {1, 1, 4, 16},
      {3, 4, 16},   {1, 3, 4, 16}, {2, 3, 4, 16}, {1, 2, 3, 4, 16}, {11, 16}};
  Sizes sizes = {1, 1, 1, 1};
  for (const Sizes& next : expected) {
    sizes.insert(sizes.begin(), 1);
    sizes = PickForSizeRatio(compaction, sizes);
    ASSERT_EQ(sizes, next);
  }
}

TEST(UniversalCompactionTest, SizeRatioThreshold) {
  UniversalCompaction ten = Universal(25, 10, 2);
  UniversalCompaction twenty = Universal(25, 20, 2);
  EXPECT_EQ(PickForSizeRatio(ten, {8, 9, 10}), (Sizes{8, 9, 10}));
  EXPECT_EQ(PickForSizeRatio(twenty, {8, 9, 10}), (Sizes{27}));
}

TEST(UniversalCompactionTest, ForcePickL0EveryMaxInterval) {
  // testForcePickL0: with an interval of 5, only every fifth pick that finds nothing forces.
  const int interval = 5;
  ForceUpLevel0Compaction compaction(Universal(25, 1, 5), interval);
  struct Case {
    std::vector<std::pair<int, int64_t>> runs;
    Sizes sizes;
    int output_level;
  };
  const std::vector<Case> cases = {
      {{{0, 1}, {0, 2}, {0, 2}, {0, 2}}, {1, 2, 2, 2}, 2},  // level 0 to max level
      {{{0, 2}, {1, 2}, {2, 2}}, {2, 2, 2}, 2},             // level 0 force pick
      {{{0, 1}, {2, 2}}, {1}, 1},                           // level 0 to empty level
  };
  for (const Case& c : cases) {
    for (int i = 1; i <= interval; ++i) {
      SCOPED_TRACE(i);
      auto unit = compaction.Pick(3, Runs(c.runs));
      ASSERT_EQ(unit.has_value(), i == interval);
      if (!unit) continue;
      EXPECT_EQ(FileSizes(*unit), c.sizes);
      EXPECT_EQ(unit->output_level, c.output_level);
    }
  }
}

TEST(UniversalCompactionTest, OffPeakHoursRaiseTheSizeRatio) {
  int hour = 9;
  UniversalCompaction compaction(1000, 1, 2, std::nullopt, OffPeakHours::Create(2, 8, 100),
                                 [&hour] { return hour; });
  auto runs = Runs({{0, 10}, {1, 15}});
  EXPECT_FALSE(compaction.Pick(3, runs).has_value());  // 10 * 1.01 < 15
  hour = 3;
  auto unit = compaction.Pick(3, runs);  // 10 * 2.01 >= 15
  ASSERT_TRUE(unit.has_value());
  EXPECT_EQ(FileSizes(*unit), (Sizes{10, 15}));
  EXPECT_EQ(unit->output_level, 2);
}

// ---------------------------------------------------------------------------------------------
// EarlyFullCompactionTest

// An EarlyFullCompaction whose clock reads `*now`.
EarlyFullCompaction Early(std::optional<int64_t> interval, std::optional<int64_t> total,
                          std::optional<int64_t> incremental, int64_t* now,
                          std::optional<int64_t> last = std::nullopt) {
  return EarlyFullCompaction(interval, total, incremental, last, [now] { return *now; });
}

TEST(EarlyFullCompactionTest, CreateFromOptions) {
  CompactionOptions options;
  EXPECT_FALSE(EarlyFullCompaction::Create(options, std::nullopt, {}).has_value());
  options.optimization_interval_millis = 3'600'000;
  EXPECT_TRUE(EarlyFullCompaction::Create(options, std::nullopt, {}).has_value());
  EXPECT_TRUE(EarlyFullCompaction::Create(options, 1234567890, {}).has_value());
  options.optimization_interval_millis.reset();
  options.total_size_threshold = 100 << 20;
  EXPECT_TRUE(EarlyFullCompaction::Create(options, std::nullopt, {}).has_value());
  options.optimization_interval_millis = 3'600'000;
  EXPECT_TRUE(EarlyFullCompaction::Create(options, std::nullopt, {}).has_value());
}

TEST(EarlyFullCompactionTest, SingleRunAndNoOptions) {
  int64_t now = 0;
  EXPECT_FALSE(Early(1000, 1000, std::nullopt, &now).TryFullCompact(5, Level0({100})));
  EXPECT_FALSE(
      Early(std::nullopt, std::nullopt, std::nullopt, &now).TryFullCompact(5, Level0({100, 200})));
}

// Steps over one EarlyFullCompaction: advance the clock, try, expect a full compaction or not.
struct EarlyStep {
  int64_t advance;
  std::vector<std::pair<int, int64_t>> runs;
  bool full;
};

void RunEarlySteps(EarlyFullCompaction trigger, int64_t* now, const std::vector<EarlyStep>& steps) {
  for (size_t i = 0; i < steps.size(); ++i) {
    SCOPED_TRACE(i);
    *now += steps[i].advance;
    auto runs = Runs(steps[i].runs);
    auto unit = trigger.TryFullCompact(5, runs);
    ASSERT_EQ(unit.has_value(), steps[i].full);
    if (!unit) continue;
    EXPECT_EQ(unit->output_level, 4);
    EXPECT_EQ(unit->files.size(), runs.size());
  }
}

TEST(EarlyFullCompactionTest, StepsOfJavasTests) {
  struct Case {
    const char* name;
    std::optional<int64_t> interval, total, incremental, last;
    std::vector<EarlyStep> steps;
  };
  const std::nullopt_t none = std::nullopt;
  // The clock starts at 10,000 ms; each step advances it, then tries runs of these sizes.
  // clang-format off
  const std::vector<Case> cases = {
      // name                                          interval total incr. last full compaction
      {"interval does not retrigger when seeded recent", 1000, none, none, 9'500,
       {{0, {{0, 100}, {0, 200}}, false}, {501, {{0, 100}, {0, 200}}, true}}},
      {"interval triggers when seeded old",              1000, none, none, 5'000,
       {{0, {{0, 100}, {0, 200}}, true}}},
      {"interval",                                       1000, none, none, none,
       {{0, {{0, 100}, {0, 200}}, true}, {500, {{0, 100}, {0, 200}}, false},
        {501, {{0, 100}, {0, 200}}, true}}},
      {"total size threshold",                           none, 1000, none, none,
       {{0, {{0, 100}, {0, 200}}, true}, {0, {{0, 500}, {0, 500}}, false},
        {0, {{0, 500}, {0, 1000}}, false}}},
      {"incremental size threshold",                     none, none, 500, none,
       {{0, {{0, 400}, {0, 200}}, true}, {0, {{0, 100}, {0, 200}}, false},
        {0, {{0, 100}, {0, 300}, {4, 500}}, false},
        {0, {{0, 100}, {0, 300}, {0, 300}, {4, 500}}, true}}},
      {"interval triggers first",                        1000, 500, none, none,
       {{0, {{0, 300}, {0, 300}}, true}}},
      {"threshold triggers when the interval does not",  1000, 500, none, none,
       {{0, {{0, 10}, {0, 20}}, true}, {500, {{0, 30}, {0, 30}}, true},
        {0, {{0, 300}, {0, 300}}, false}}},
      {"total size trigger counts as full compaction",   1000, 500, none, none,
       {{0, {{0, 300}, {0, 300}}, true}, {100, {{0, 300}, {0, 100}}, true},
        {901, {{0, 300}, {0, 300}}, false}}},
      {"incremental trigger counts as full compaction",  1000, none, 500, none,
       {{0, {{0, 300}, {0, 100}}, true}, {100, {{0, 300}, {0, 300}}, true},
        {901, {{0, 300}, {0, 100}}, false}}},
  };
  // clang-format on
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    int64_t now = 10'000;
    RunEarlySteps(Early(c.interval, c.total, c.incremental, &now, c.last), &now, c.steps);
  }
}

// ---------------------------------------------------------------------------------------------
// OffPeakHoursTest

TEST(OffPeakHoursTest, Create) {
  EXPECT_FALSE(OffPeakHours::Create(-1, -1, 10).has_value());
  EXPECT_FALSE(OffPeakHours::Create(5, 5, 10).has_value());
  EXPECT_FALSE(OffPeakHours::Create(2, -1, 10).has_value());
  EXPECT_FALSE(OffPeakHours::Create(-1, 2, 10).has_value());
  auto overnight = OffPeakHours::Create(22, 6, 10);
  ASSERT_TRUE(overnight.has_value());
  EXPECT_EQ(overnight->CurrentRatio(23), 10);
  EXPECT_EQ(overnight->CurrentRatio(7), 0);
}

TEST(OffPeakHoursTest, CurrentRatio) {
  struct Case {
    int start, end, hour, ratio;
  };
  // clang-format off
  const std::vector<Case> cases = {
      {2, 8, 1, 0},    {2, 8, 2, 10},   {2, 8, 5, 10},   {2, 8, 7, 10},  {2, 8, 8, 0},
      {2, 8, 9, 0},    {22, 6, 21, 0},  {22, 6, 22, 10}, {22, 6, 23, 10}, {22, 6, 0, 10},
      {22, 6, 5, 10},  {22, 6, 6, 0},   {22, 6, 10, 0}};
  // clang-format on
  for (const Case& c : cases) {
    SCOPED_TRACE(std::to_string(c.start) + "-" + std::to_string(c.end) + " at " +
                 std::to_string(c.hour));
    EXPECT_EQ(OffPeakHours::Create(c.start, c.end, 10)->CurrentRatio(c.hour), c.ratio);
  }
}

// ---------------------------------------------------------------------------------------------
// LevelsTest

TEST(LevelsTest, NonEmptyHighestLevel) {
  struct Case {
    std::vector<int> file_levels;
    int highest;
  };
  for (const Case& c : std::vector<Case>{{{}, -1}, {{0, 0}, 0}, {{0, 1}, 1}, {{0, 1, 2}, 2}}) {
    std::vector<meta::DataFileMeta> files;
    for (int level : c.file_levels) {
      files.push_back(KeyedFile("f" + std::to_string(files.size()), level, 0, 0));
    }
    ASSERT_OK_AND_ASSIGN(Levels levels, Levels::Create(IntKey(), files, 3));
    EXPECT_EQ(levels.NonEmptyHighestLevel(), c.highest);
    EXPECT_EQ(levels.AllFiles().size(), files.size());
  }
}

TEST(LevelsTest, Level0FilesWithTheSameSequenceNumbersAreKept) {
  ASSERT_OK_AND_ASSIGN(
      Levels levels,
      Levels::Create(IntKey(), {KeyedFile("a", 0, 0, 0), KeyedFile("b", 0, 0, 0)}, 3));
  EXPECT_EQ(levels.AllFiles().size(), 2u);
  EXPECT_EQ(levels.NumberOfSortedRuns(), 2);
}

TEST(LevelsTest, Level0InJavasOrder) {
  auto file = [](std::string name, int64_t min_seq, int64_t max_seq,
                 std::optional<int64_t> created) {
    meta::DataFileMeta f = KeyedFile(std::move(name), 0, 0, 9, max_seq);
    f.min_sequence_number = min_seq;
    f.creation_time_millis = created;
    return f;
  };
  std::vector<meta::DataFileMeta> files = {
      file("e", 0, 5, 100), file("d", 1, 7, 50),  file("c", 0, 7, 200),
      file("b", 0, 7, 100), file("a", 0, 7, 100), file("z", 0, 7, std::nullopt),
      file("y", 0, 9, 0),
  };
  ASSERT_OK_AND_ASSIGN(Levels levels, Levels::Create(IntKey(), files, 3));
  // Max sequence descending; then min sequence, creation time (unset first), name ascending.
  EXPECT_EQ(Names(levels.Level0()), (std::vector<std::string>{"y", "z", "a", "b", "c", "d", "e"}));
  auto runs = levels.LevelSortedRuns();
  ASSERT_EQ(runs.size(), 7u);
  EXPECT_EQ(runs[0].run.files[0].file_name, "y");
  for (const auto& run : runs) EXPECT_EQ(run.level, 0);
}

TEST(LevelsTest, HigherLevelsAreSortedRuns) {
  ASSERT_OK_AND_ASSIGN(
      Levels levels, Levels::Create(IntKey(),
                                    {KeyedFile("c", 2, 20, 29, 1, 10),
                                     KeyedFile("a", 2, 0, 9, 1, 5), KeyedFile("b", 2, 10, 19, 1, 7),
                                     KeyedFile("l0", 0, 0, 50), KeyedFile("x", 1, -5, 100, 1, 3)},
                                    3));
  EXPECT_EQ(levels.NumberOfLevels(), 3);
  EXPECT_EQ(levels.MaxLevel(), 2);
  EXPECT_EQ(levels.NumberOfSortedRuns(), 3);
  EXPECT_EQ(levels.TotalFileSize(), 10 + 5 + 7 + 1 + 3);
  EXPECT_EQ(Names(levels.RunOfLevel(2).files), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(levels.RunOfLevel(2).TotalSize(), 22);
  auto runs = levels.LevelSortedRuns();
  ASSERT_EQ(runs.size(), 3u);
  EXPECT_EQ(runs[0].level, 0);
  EXPECT_EQ(runs[1].level, 1);
  EXPECT_EQ(runs[2].level, 2);
  EXPECT_EQ(Names(levels.AllFiles()), (std::vector<std::string>{"l0", "x", "a", "b", "c"}));
}

TEST(LevelsTest, LevelsGrowToTheHighestFileLevel) {
  ASSERT_OK_AND_ASSIGN(Levels levels, Levels::Create(IntKey(), {KeyedFile("a", 4, 0, 1)}, 3));
  EXPECT_EQ(levels.NumberOfLevels(), 5);
  EXPECT_EQ(levels.NonEmptyHighestLevel(), 4);
  EXPECT_TRUE(Levels::Create(IntKey(), {}, 1).status().IsInvalid());
  EXPECT_TRUE(Levels::Create(IntKey(), {}, Levels::kMaxLevels + 1).status().IsInvalid());
  EXPECT_TRUE(Levels::Create(IntKey(), {}, INT_MAX).status().IsInvalid());
  EXPECT_TRUE(Levels::Create(IntKey(), {KeyedFile("a", -1, 0, 1)}, 3).status().IsCorruption());
  EXPECT_TRUE(Levels::Create(IntKey(), {KeyedFile("a", INT_MAX, 0, 1)}, 3).status().IsCorruption());
  ASSERT_OK_AND_ASSIGN(Levels grown, Levels::Create(IntKey(), {KeyedFile("a", 1, 0, 1)}, 1));
  EXPECT_EQ(grown.NumberOfLevels(), 2);
}

TEST(LevelsTest, CreateRefusesOverlapsDuplicatesAndBadKeys) {
  EXPECT_TRUE(Levels::Create(IntKey(), {KeyedFile("a", 1, 0, 10), KeyedFile("b", 1, 10, 20)}, 3)
                  .status()
                  .IsCorruption());
  EXPECT_TRUE(Levels::Create(IntKey(), {KeyedFile("a", 0, 0, 10), KeyedFile("a", 1, 20, 30)}, 3)
                  .status()
                  .IsInvalid());
  meta::DataFileMeta inverted = KeyedFile("a", 1, 10, 0);
  EXPECT_TRUE(Levels::Create(IntKey(), {inverted}, 3).status().IsCorruption());
  meta::DataFileMeta garbage = KeyedFile("a", 1, 0, 0);
  garbage.min_key = "xx";
  EXPECT_TRUE(Levels::Create(IntKey(), {garbage}, 3).status().IsCorruption());
  // Level-0 files may overlap, and their keys are not read.
  EXPECT_OK(
      Levels::Create(IntKey(), {KeyedFile("a", 0, 0, 10), KeyedFile("b", 0, 5, 20)}, 3).status());
}

TEST(LevelsTest, UpdateReplacesInputsWithOutputs) {
  ASSERT_OK_AND_ASSIGN(Levels levels,
                       Levels::Create(IntKey(),
                                      {KeyedFile("n1", 0, 0, 40, 5), KeyedFile("n2", 0, 30, 60, 6),
                                       KeyedFile("m1", 1, 0, 19), KeyedFile("m2", 1, 20, 39),
                                       KeyedFile("t1", 2, 100, 200)},
                                      3));
  // n1, n2 and m2 merge into level 1 (keys 20 to 60); m1 stays.
  ASSERT_OK(levels.Update(
      {KeyedFile("n1", 0, 0, 40), KeyedFile("n2", 0, 30, 60), KeyedFile("m2", 1, 20, 39)},
      {KeyedFile("o2", 1, 40, 60), KeyedFile("o1", 1, 20, 39)}));
  EXPECT_TRUE(levels.Level0().empty());
  EXPECT_EQ(Names(levels.RunOfLevel(1).files), (std::vector<std::string>{"m1", "o1", "o2"}));
  // An upgrade: the same file at a new level.
  ASSERT_OK(levels.Update({KeyedFile("m1", 1, 0, 19)}, {KeyedFile("m1", 2, 0, 19)}));
  EXPECT_EQ(Names(levels.RunOfLevel(2).files), (std::vector<std::string>{"m1", "t1"}));
  // A new level-0 file.
  ASSERT_OK(levels.Update({}, {KeyedFile("n3", 0, 0, 1000, 7)}));
  EXPECT_EQ(Names(levels.AllFiles()), (std::vector<std::string>{"n3", "o1", "o2", "m1", "t1"}));
}

TEST(LevelsTest, FailedUpdateChangesNothing) {
  ASSERT_OK_AND_ASSIGN(
      Levels levels,
      Levels::Create(
          IntKey(),
          {KeyedFile("n1", 0, 0, 40), KeyedFile("m1", 1, 0, 19), KeyedFile("m2", 1, 20, 39)}, 3));
  const auto files = Names(levels.AllFiles());
  struct Case {
    const char* name;
    std::vector<meta::DataFileMeta> before, after;
    bool corruption;
  };
  const std::vector<Case> cases = {
      {"input not there", {KeyedFile("zz", 0, 0, 1)}, {}, false},
      {"input at another level", {KeyedFile("m1", 2, 0, 19)}, {}, false},
      {"output already there", {}, {KeyedFile("m1", 2, 0, 1)}, false},
      {"output twice", {}, {KeyedFile("o", 2, 0, 1), KeyedFile("o", 2, 5, 6)}, false},
      {"output level too high", {}, {KeyedFile("o", 3, 0, 1)}, false},
      {"output overlaps its level", {KeyedFile("n1", 0, 0, 40)}, {KeyedFile("o", 1, 15, 25)}, true},
      {"outputs overlap each other",
       {KeyedFile("n1", 0, 0, 40)},
       {KeyedFile("o1", 2, 0, 10), KeyedFile("o2", 2, 10, 20)},
       true},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Status st = levels.Update(c.before, c.after);
    EXPECT_TRUE(c.corruption ? st.IsCorruption() : st.IsInvalid()) << st.ToString();
    EXPECT_EQ(Names(levels.AllFiles()), files);
  }
}

// ---------------------------------------------------------------------------------------------
// CompactStrategy.pickFullCompaction and the helpers around a pick

TEST(PickFullCompactionTest, EveryRunIntoTheTopLevel) {
  EXPECT_FALSE(PickFullCompaction(3, {}).has_value());
  for (const auto& runs : {Runs({{0, 1}, {2, 5}}), Runs({{1, 4}}), Runs({{0, 1}})}) {
    auto unit = PickFullCompaction(3, runs);
    ASSERT_TRUE(unit.has_value());
    EXPECT_EQ(unit->output_level, 2);
    EXPECT_EQ(unit->files.size(), runs.size());
    EXPECT_FALSE(unit->file_rewrite);
  }
}

TEST(PickFullCompactionTest, TopLevelAloneIsRewrittenOnlyWhereNeeded) {
  LevelSortedRun top{2, SortedRun{{KeyedFile("a", 2, 0, 9), KeyedFile("b", 2, 10, 19),
                                   KeyedFile("c", 2, 20, 29)}}};
  EXPECT_FALSE(PickFullCompaction(3, {top}).has_value());
  struct Case {
    const char* name;
    FullCompactionFilter filter;
    std::vector<std::string> rewritten;
  };
  const std::vector<Case> cases = {
      {"force-rewrite-all-files", {true, {}, {}}, {"a", "b", "c"}},
      {"deletion vectors",
       {false, [](const meta::DataFileMeta& f) { return f.file_name == "b"; }, {}},
       {"b"}},
      {"expired records",
       {false, {}, [](const meta::DataFileMeta& f) { return f.file_name != "b"; }},
       {"a", "c"}},
      {"nothing to do", {false, [](const meta::DataFileMeta&) { return false; }, {}}, {}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto unit = PickFullCompaction(3, {top}, c.filter);
    ASSERT_EQ(unit.has_value(), !c.rewritten.empty());
    if (!unit) continue;
    EXPECT_TRUE(unit->file_rewrite);
    EXPECT_EQ(unit->output_level, 2);
    EXPECT_EQ(Names(unit->files), c.rewritten);
  }
}

TEST(AroundAPickTest, WorthCompacting) {
  auto unit = [](int output_level, std::vector<int> file_levels) {
    CompactUnit u;
    u.output_level = output_level;
    for (int level : file_levels) u.files.push_back(OneFileRun(level, 1).run.files[0]);
    return u;
  };
  EXPECT_FALSE(WorthCompacting(unit(2, {})));
  EXPECT_FALSE(WorthCompacting(unit(2, {2})));
  EXPECT_TRUE(WorthCompacting(unit(2, {0})));
  EXPECT_TRUE(WorthCompacting(unit(2, {2, 2})));
}

TEST(AroundAPickTest, CanDropDelete) {
  auto to = [](int level) { return CompactUnit{level, {}, false}; };
  EXPECT_FALSE(CanDropDelete(to(0), 0, false));
  EXPECT_FALSE(CanDropDelete(to(0), 0, true));
  EXPECT_TRUE(CanDropDelete(to(2), 2, false));
  EXPECT_TRUE(CanDropDelete(to(3), 2, false));
  EXPECT_FALSE(CanDropDelete(to(1), 2, false));
  EXPECT_TRUE(CanDropDelete(to(1), 2, true));
  EXPECT_FALSE(CanDropDelete(to(2), 2, false, /*force_keep_delete=*/true));
}

TEST(AroundAPickTest, StopTriggerAndFullCompactionCommits) {
  CompactionOptions options;
  EXPECT_FALSE(MustWaitForCompaction(8, options));
  EXPECT_TRUE(MustWaitForCompaction(9, options));
  EXPECT_FALSE(FullCompactionDue(options, 5));
  EXPECT_FALSE(FullCompactionDue(options, INT64_MAX));
  options.full_compaction_delta_commits = 3;
  for (auto [id, due] : std::vector<std::pair<int64_t, bool>>{
           {1, false}, {3, true}, {4, false}, {6, true}, {INT64_MAX, true}}) {
    EXPECT_EQ(FullCompactionDue(options, id), due) << id;
  }
  options.full_compaction_delta_commits = 0;  // as 1, as Java's Flink writer
  EXPECT_TRUE(FullCompactionDue(options, 7));
  options.full_compaction_delta_commits.reset();
  options.changelog_full_compaction = true;
  EXPECT_TRUE(FullCompactionDue(options, 7));
}

TEST(AroundAPickTest, EstimateLastFullCompactionReadsTheLocalWallClock) {
  const int64_t epoch_millis = 1'700'000'000'123;
  std::time_t seconds = static_cast<std::time_t>(epoch_millis / 1000);
  std::tm local{};
  localtime_r(&seconds, &local);
  const int64_t wall = epoch_millis + static_cast<int64_t>(local.tm_gmtoff) * 1000;
  auto file = [](int level, std::optional<int64_t> created) {
    meta::DataFileMeta f = File(1);
    f.level = level;
    f.creation_time_millis = created;
    return f;
  };
  EXPECT_FALSE(EstimateLastFullCompaction({}, 3).has_value());
  EXPECT_FALSE(EstimateLastFullCompaction({file(1, wall), file(2, std::nullopt)}, 3).has_value());
  EXPECT_EQ(EstimateLastFullCompaction({file(2, wall - 5000), file(2, wall), file(1, wall + 9)}, 3),
            epoch_millis);
}

// ---------------------------------------------------------------------------------------------
// CompactionOptions and the strategy they make

TEST(CompactionOptionsTest, JavasDefaults) {
  ASSERT_OK_AND_ASSIGN(CompactionOptions o, CompactionOptions::FromTableOptions({}));
  EXPECT_EQ(o.num_sorted_run_compaction_trigger, 5);
  EXPECT_EQ(o.num_sorted_run_stop_trigger, 8);
  EXPECT_EQ(o.num_levels, 6);
  EXPECT_EQ(o.max_size_amplification_percent, 200);
  EXPECT_EQ(o.size_ratio, 1);
  EXPECT_EQ(o.offpeak_start_hour, -1);
  EXPECT_EQ(o.offpeak_end_hour, -1);
  EXPECT_EQ(o.offpeak_ratio, 0);
  EXPECT_FALSE(o.optimization_interval_millis || o.total_size_threshold ||
               o.incremental_size_threshold || o.full_compaction_delta_commits);
  EXPECT_FALSE(o.force_up_level_0 || o.force_rewrite_all_files || o.need_lookup ||
               o.changelog_full_compaction || o.write_only);
  EXPECT_EQ(o.lookup_compact, LookupCompactMode::kRadical);
  EXPECT_EQ(o.lookup_compact_max_interval, 10);
}

TEST(CompactionOptionsTest, ValuesAndDerivedValues) {
  struct Case {
    meta::Options options;
    std::function<void(const CompactionOptions&)> check;
  };
  const std::vector<Case> cases = {
      {{{"num-sorted-run.compaction-trigger", "3"}},
       [](const CompactionOptions& o) {
         EXPECT_EQ(o.num_sorted_run_stop_trigger, 6);
         EXPECT_EQ(o.num_levels, 4);
         EXPECT_EQ(o.lookup_compact_max_interval, 6);
       }},
      {{{"num-sorted-run.compaction-trigger", "10"},
        {"num-sorted-run.stop-trigger", "4"},
        {"num-levels", "3"},
        {"lookup-compact.max-interval", "2"}},
       [](const CompactionOptions& o) {
         EXPECT_EQ(o.num_sorted_run_stop_trigger, 10);  // at least the trigger
         EXPECT_EQ(o.num_levels, 3);
         EXPECT_EQ(o.lookup_compact_max_interval, 10);  // at least the trigger
       }},
      {{{"num-sorted-run.compaction-trigger", "2147483647"}},
       [](const CompactionOptions& o) {
         EXPECT_EQ(o.num_sorted_run_stop_trigger, INT_MAX);
         EXPECT_EQ(o.num_levels, INT_MAX);
         EXPECT_EQ(o.lookup_compact_max_interval, INT_MAX);
       }},
      {{{"compaction.optimization-interval", "1 h"},
        {"compaction.total-size-threshold", "100 mb"},
        {"compaction.incremental-size-threshold", "1 gb"},
        {"full-compaction.delta-commits", "4"},
        {"compaction.offpeak.start.hour", "22"},
        {"compaction.offpeak.end.hour", "6"},
        {"compaction.offpeak-ratio", "30"},
        {"compaction.size-ratio", "7"},
        {"compaction.max-size-amplification-percent", "150"},
        {"compaction.force-up-level-0", "true"},
        {"compaction.force-rewrite-all-files", "true"},
        {"write-only", "true"}},
       [](const CompactionOptions& o) {
         EXPECT_EQ(o.optimization_interval_millis, 3'600'000);
         EXPECT_EQ(o.total_size_threshold, 100LL << 20);
         EXPECT_EQ(o.incremental_size_threshold, 1LL << 30);
         EXPECT_EQ(o.full_compaction_delta_commits, 4);
         EXPECT_EQ(o.offpeak_start_hour, 22);
         EXPECT_EQ(o.offpeak_end_hour, 6);
         EXPECT_EQ(o.offpeak_ratio, 30);
         EXPECT_EQ(o.size_ratio, 7);
         EXPECT_EQ(o.max_size_amplification_percent, 150);
         EXPECT_TRUE(o.force_up_level_0 && o.force_rewrite_all_files && o.write_only);
         EXPECT_FALSE(o.need_lookup);
       }},
      {{{"lookup-compact", "gentle"}},
       [](const CompactionOptions& o) { EXPECT_EQ(o.lookup_compact, LookupCompactMode::kGentle); }},
      {{{"changelog-producer", "full-compaction"}},
       [](const CompactionOptions& o) {
         EXPECT_TRUE(o.changelog_full_compaction);
         EXPECT_FALSE(o.need_lookup);
       }},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(i);
    ASSERT_OK_AND_ASSIGN(CompactionOptions o,
                         CompactionOptions::FromTableOptions(cases[i].options));
    cases[i].check(o);
  }
}

TEST(CompactionOptionsTest, LookupTables) {
  for (const meta::Options& options :
       std::vector<meta::Options>{{{"deletion-vectors.enabled", "true"}},
                                  {{"merge-engine", "first-row"}},
                                  {{"changelog-producer", "lookup"}},
                                  {{"force-lookup", "true"}}}) {
    SCOPED_TRACE(options[0].first);
    ASSERT_OK_AND_ASSIGN(CompactionOptions o, CompactionOptions::FromTableOptions(options));
    EXPECT_TRUE(o.need_lookup);
  }
}

TEST(CompactionOptionsTest, InvalidValuesNameTheOption) {
  for (const auto& [key, value] : std::vector<std::pair<std::string, std::string>>{
           {"num-sorted-run.compaction-trigger", "0"},
           {"num-levels", "1"},
           {"compaction.offpeak.start.hour", "24"},
           {"compaction.offpeak.end.hour", "-2"},
           {"compaction.size-ratio", "x"},
           {"compaction.optimization-interval", "soon"},
           {"lookup-compact", "lazy"},
           {"lookup-compact.max-interval", "0"}}) {
    SCOPED_TRACE(key);
    auto o = CompactionOptions::FromTableOptions({{key, value}});
    ASSERT_FALSE(o.ok());
    EXPECT_NE(o.status().message().find(key), std::string::npos) << o.status().ToString();
  }
}

TEST(MakeCompactStrategyTest, JavasChoice) {
  CompactionOptions plain;
  auto universal = MakeCompactStrategy(plain, std::nullopt);
  EXPECT_NE(dynamic_cast<UniversalCompaction*>(universal.get()), nullptr);
  CompactionOptions force = plain;
  force.force_up_level_0 = true;
  EXPECT_NE(dynamic_cast<ForceUpLevel0Compaction*>(MakeCompactStrategy(force, std::nullopt).get()),
            nullptr);
  // A lookup table pushes a lone level-0 file up at once (radical) ...
  CompactionOptions lookup = plain;
  lookup.need_lookup = true;
  auto radical = MakeCompactStrategy(lookup, std::nullopt);
  auto runs = Runs({{0, 1}, {5, 100}});
  EXPECT_FALSE(universal->Pick(6, runs).has_value());
  auto unit = radical->Pick(6, runs);
  ASSERT_TRUE(unit.has_value());
  EXPECT_EQ(unit->output_level, 4);
  // ... or at every lookup-compact.max-interval-th pick (gentle).
  lookup.lookup_compact = LookupCompactMode::kGentle;
  auto gentle = MakeCompactStrategy(lookup, std::nullopt);
  for (int i = 1; i <= lookup.lookup_compact_max_interval; ++i) {
    EXPECT_EQ(gentle->Pick(6, runs).has_value(), i == lookup.lookup_compact_max_interval) << i;
  }
}

TEST(MakeCompactStrategyTest, ClockAndLastFullCompaction) {
  CompactionOptions options;
  options.optimization_interval_millis = 1000;
  int64_t now = 5'000;
  CompactionClock clock{[&now] { return now; }, [] { return 12; }};
  auto strategy = MakeCompactStrategy(options, /*last_full_compaction_millis=*/4'500, clock);
  auto runs = Runs({{0, 1}, {5, 100}});
  EXPECT_FALSE(strategy->Pick(6, runs).has_value());
  now = 5'501;
  auto unit = strategy->Pick(6, runs);
  ASSERT_TRUE(unit.has_value());
  EXPECT_EQ(unit->output_level, 5);
}

// ---------------------------------------------------------------------------------------------
// Randomized: picks over a merge tree that keeps receiving level-0 files, each rewrite applied
// with Levels::Update. Checks that a pick is a prefix of the runs going to a level no unpicked
// run occupies (so the rewrite's outputs never overlap a file left in place), that universal
// picks never output to level 0, and that every level above 0 stays a sorted run.

struct Model {
  std::map<std::string, std::pair<int32_t, int32_t>> keys;  // live file -> key range
  int next_file = 0;
  int64_t next_sequence = 1;
};

meta::DataFileMeta NewFile(Model* model, int level, int32_t min, int32_t max, int64_t size) {
  meta::DataFileMeta file = KeyedFile("r" + std::to_string(model->next_file++), level, min, max,
                                      model->next_sequence, size);
  file.min_sequence_number = model->next_sequence++;
  model->keys[file.file_name] = {min, max};
  return file;
}

void CheckLevels(const Levels& levels, const Model& model) {
  auto runs = levels.LevelSortedRuns();
  ASSERT_EQ(levels.NumberOfSortedRuns(), static_cast<int>(runs.size()));
  int64_t total = 0;
  size_t files = 0;
  int previous_level = 0;
  for (const auto& run : runs) {
    ASSERT_GE(run.level, previous_level);
    previous_level = run.level;
    total += run.run.TotalSize();
    files += run.run.files.size();
    if (run.level == 0) continue;
    for (size_t i = 1; i < run.run.files.size(); ++i) {
      ASSERT_GT(model.keys.at(run.run.files[i].file_name).first,
                model.keys.at(run.run.files[i - 1].file_name).second);
    }
  }
  EXPECT_EQ(levels.TotalFileSize(), total);
  EXPECT_EQ(files, model.keys.size());
}

// Java's rewrite, as far as levels see it: the unit's files become 1 to 3 files at the output
// level covering their key range.
std::vector<meta::DataFileMeta> Rewrite(const CompactUnit& unit, Model* model, std::mt19937* rng) {
  int32_t min = INT32_MAX;
  int32_t max = INT32_MIN;
  int64_t size = 0;
  for (const auto& file : unit.files) {
    auto range = model->keys.at(file.file_name);
    min = std::min(min, range.first);
    max = std::max(max, range.second);
    size += file.file_size;
    model->keys.erase(file.file_name);
  }
  int pieces = std::min<int>(1 + static_cast<int>((*rng)() % 3), max - min + 1);
  std::vector<meta::DataFileMeta> outputs;
  int32_t from = min;
  for (int i = 0; i < pieces; ++i) {
    int32_t to = i + 1 == pieces ? max : from + (max - min + 1) / pieces - 1;
    outputs.push_back(
        NewFile(model, unit.output_level, from, to, std::max<int64_t>(1, size / pieces)));
    from = to + 1;
  }
  return outputs;
}

void CheckUniversalPick(const CompactUnit& unit, const std::vector<LevelSortedRun>& runs,
                        int max_level) {
  ASSERT_FALSE(unit.files.empty());
  EXPECT_GE(unit.output_level, 1);
  EXPECT_LE(unit.output_level, max_level);
  size_t picked_runs = 0;
  size_t at = 0;
  while (at < unit.files.size()) {
    ASSERT_LT(picked_runs, runs.size());
    for (const auto& file : runs[picked_runs].run.files) {
      ASSERT_LT(at, unit.files.size());
      ASSERT_EQ(unit.files[at++].file_name, file.file_name);
    }
    EXPECT_LE(runs[picked_runs].level, unit.output_level);
    ++picked_runs;
  }
  for (size_t i = picked_runs; i < runs.size(); ++i) EXPECT_GT(runs[i].level, unit.output_level);
}

TEST(CompactStrategyPropertyTest, PicksKeepTheMergeTreeSound) {
  for (uint32_t seed = 1; seed <= 40; ++seed) {
    SCOPED_TRACE(seed);
    std::mt19937 rng(seed);
    auto uniform = [&rng](int lo, int hi) {
      return std::uniform_int_distribution<int>(lo, hi)(rng);
    };
    const int trigger = uniform(1, 6);
    const int num_levels = uniform(2, 7);
    const bool force_up = uniform(0, 1) == 1;
    UniversalCompaction universal(uniform(0, 300), uniform(0, 20), trigger);
    std::unique_ptr<CompactStrategy> strategy =
        force_up ? std::unique_ptr<CompactStrategy>(
                       std::make_unique<ForceUpLevel0Compaction>(universal, std::nullopt))
                 : std::make_unique<UniversalCompaction>(universal);
    ASSERT_OK_AND_ASSIGN(Levels levels, Levels::Create(IntKey(), {}, num_levels));
    Model model;
    for (int step = 0; step < 150; ++step) {
      // A pick follows every new file, so the runs never pile up above the trigger.
      ASSERT_LE(levels.NumberOfSortedRuns(), trigger);
      int32_t min = uniform(0, 1000);
      ASSERT_OK(
          levels.Update({}, {NewFile(&model, 0, min, min + uniform(0, 200), uniform(1, 100))}));
      auto runs = levels.LevelSortedRuns();
      bool full = uniform(0, 19) == 0;
      auto unit = full ? PickFullCompaction(levels.NumberOfLevels(), runs)
                       : strategy->Pick(levels.NumberOfLevels(), runs);
      if (force_up && !full) {
        ASSERT_EQ(unit.has_value(), !levels.Level0().empty());  // level 0 always goes up
      }
      if (!unit) continue;
      ASSERT_NO_FATAL_FAILURE(CheckUniversalPick(*unit, runs, levels.MaxLevel()));
      if (full) {
        EXPECT_EQ(unit->output_level, levels.MaxLevel());
        EXPECT_EQ(unit->files.size(), levels.AllFiles().size());
      }
      if (!WorthCompacting(*unit)) continue;
      ASSERT_OK(levels.Update(unit->files, Rewrite(*unit, &model, &rng)));
      ASSERT_NO_FATAL_FAILURE(CheckLevels(levels, model));
      if (full) {
        EXPECT_EQ(levels.NumberOfSortedRuns(), 1);
      }
    }
  }
}

}  // namespace
}  // namespace freshet::mergetree::compact
