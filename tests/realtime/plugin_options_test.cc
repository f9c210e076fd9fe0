// MemIndexer plugins declare the table options they read (src/realtime/indexers/
// mem_indexer_registry.h): the option registry parses them, refuses invalid values naming them,
// refuses a table setting another plugin's options, and lists them in CoreOptions::Effective().
#include <gtest/gtest.h>

#include <atomic>

#include "meta/options/core_options.h"
#include "meta/options/option_registry.h"
#include "realtime/indexers/columnar_mem_indexer.h"
#include "realtime/indexers/mem_indexer_registry.h"
#include "realtime/realtime_test_util.h"

namespace freshet {
namespace {

using testing::Events;
using testing::EventTableSpec;
using testing::TempDir;
using testing::WriteEvents;

std::atomic<int32_t> last_batch_rows{-1};

// The columnar plugin, reading one option of its own.
class BatchingFactory : public realtime::MemIndexerFactory {
 public:
  std::string name() const override { return "test-batching"; }
  Result<std::unique_ptr<realtime::MemIndexer>> Create(
      const realtime::MemIndexerOptions& options) override {
    const meta::Options table_options(options.table_options.begin(), options.table_options.end());
    FRESHET_ASSIGN_OR_RETURN(int32_t rows,
                             meta::GetIntOption(table_options, "realtime.test-batching.rows"));
    last_batch_rows = rows;
    return realtime::MakeColumnarMemIndexerFactory()->Create(options);
  }
};

void RegisterOnce() {
  static const Status registered = [] {
    meta::OptionDef rows;
    rows.name = "realtime.test-batching.rows";
    rows.type = meta::OptionType::kInt;
    rows.default_value = "100";
    rows.min = 1;
    rows.description = "Rows per batch of the test plugin.";
    return realtime::RegisterMemIndexerFactory(std::make_shared<BatchingFactory>(), {rows});
  }();
  ASSERT_OK(registered);
}

TEST(PluginOptionsTest, APluginDeclaresReadsAndValidatesItsOptions) {
  RegisterOnce();
  auto row = meta::OptionRegistry::Global().Find("realtime.test-batching.rows");
  ASSERT_NE(row, nullptr);
  EXPECT_EQ(row->owner, "realtime:test-batching");
  EXPECT_EQ(row->check, meta::OptionCheck::kWrite);
  EXPECT_EQ(realtime::MemIndexerOptionNames("test-batching"),
            std::vector<std::string>{"realtime.test-batching.rows"});

  TempDir dir;
  const std::string plugin =
      R"("realtime.enabled": "true", "realtime.mem-indexer": "test-batching")";
  // The value set reaches the plugin, parsed under the registry's rule.
  ASSERT_OK_AND_ASSIGN(
      auto table,
      Table::Create(dir.Sub("t"),
                    EventTableSpec(plugin + R"(, "realtime.test-batching.rows": " 7")")));
  ASSERT_OK_AND_ASSIGN(auto writer, table->NewWriter());
  ASSERT_OK(WriteEvents(*writer, Events(1, 0, 3)));
  EXPECT_EQ(last_batch_rows.load(), 7);
  ASSERT_OK(writer->Commit().status());
  // An invalid value is refused at create, naming the option and what it accepts.
  auto bad = Table::Create(dir.Sub("bad"),
                           EventTableSpec(plugin + R"(, "realtime.test-batching.rows": "0")"));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("'realtime.test-batching.rows'"), std::string::npos)
      << bad.status().ToString();
  EXPECT_NE(bad.status().message().find("a positive integer"), std::string::npos)
      << bad.status().ToString();
  // Another plugin's table may not carry it.
  auto foreign = Table::Create(
      dir.Sub("foreign"),
      EventTableSpec(R"("realtime.enabled": "true", "realtime.test-batching.rows": "5")"));
  ASSERT_FALSE(foreign.ok());
  EXPECT_NE(foreign.status().message().find("'test-batching'"), std::string::npos)
      << foreign.status().ToString();
  // Listed with its default.
  ASSERT_OK_AND_ASSIGN(auto options, meta::CoreOptions::Make({}, false));
  EXPECT_EQ(*meta::FindOption(options.Effective(), "realtime.test-batching.rows"), "100 (default)");
}

TEST(PluginOptionsTest, DeclarationsAreChecked) {
  meta::OptionDef row;
  row.name = "not-realtime.x";
  row.type = meta::OptionType::kBool;
  row.default_value = "true";
  row.description = "x";
  EXPECT_TRUE(realtime::DeclareMemIndexerOptions("test-declare", {row}).IsInvalid());
  row.name = "realtime.spill.dir";  // the spilling plugin's
  EXPECT_TRUE(realtime::DeclareMemIndexerOptions("test-declare", {row}).IsAlreadyExists());
  row.name = "realtime.test-declare.flag";
  ASSERT_OK(realtime::DeclareMemIndexerOptions("test-declare", {row}));
  ASSERT_OK(realtime::DeclareMemIndexerOptions("test-declare", {row}));  // again: the same rows
  EXPECT_EQ(realtime::MemIndexerOptionNames("test-declare"),
            std::vector<std::string>{"realtime.test-declare.flag"});
}

}  // namespace
}  // namespace freshet
