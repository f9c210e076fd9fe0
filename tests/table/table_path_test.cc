// Table paths the public API refuses before touching the file system: an empty path (which would
// mean the current directory) and, for Create, a path with a ".." component (creating "a/../t"
// would leave a directory "a" outside the table).
#include <gtest/gtest.h>

#include <filesystem>

#include "freshet/table.h"
#include "testing/test_util.h"

namespace freshet {
namespace {

namespace fs = std::filesystem;
using freshet::testing::TempDir;

constexpr const char* kSchema = R"json({"fields": [{"name": "id", "type": "BIGINT"}]})json";

bool IsEmptyDir(const std::string& dir) { return fs::is_empty(dir); }

// Runs the test body inside a fresh current directory, so that anything a relative (or empty)
// path would create lands where the test can see it.
class TablePathTest : public ::testing::Test {
 protected:
  void SetUp() override { fs::current_path(cwd_.path()); }
  void TearDown() override { fs::current_path(saved_); }

  fs::path saved_ = fs::current_path();
  TempDir cwd_;
};

TEST_F(TablePathTest, EmptyPathIsInvalid) {
  auto created = Table::Create("", kSchema);
  ASSERT_FALSE(created.ok());
  EXPECT_TRUE(created.status().IsInvalid()) << created.status().ToString();
  EXPECT_EQ(created.status().message(), "the table path is empty");
  EXPECT_TRUE(IsEmptyDir(cwd_.path()));

  // Not even a table in the current directory is opened through an empty path.
  ASSERT_TRUE(Table::Create(cwd_.path(), kSchema).ok());
  auto opened = Table::Open("");
  ASSERT_FALSE(opened.ok());
  EXPECT_TRUE(opened.status().IsInvalid()) << opened.status().ToString();
}

TEST_F(TablePathTest, CreateRefusesParentComponents) {
  for (std::string path : {cwd_.Sub("a/../t"), std::string("a/../t"), std::string("../t"),
                           cwd_.Sub("t/.."), cwd_.Sub("a/..//t")}) {
    auto created = Table::Create(path, kSchema);
    ASSERT_FALSE(created.ok()) << path;
    EXPECT_TRUE(created.status().IsInvalid()) << created.status().ToString();
    EXPECT_EQ(
        created.status().message(),
        "table path '" + path + "' has a '..' component; name the table directory without it");
    EXPECT_TRUE(IsEmptyDir(cwd_.path())) << path;
  }
  EXPECT_FALSE(fs::exists(fs::path(cwd_.path()).parent_path() / "t"));
}

// Names that merely contain dots are ordinary, and an existing table opens through any path that
// resolves to it.
TEST_F(TablePathTest, DotsInNamesAndOpeningThroughParentComponents) {
  ASSERT_TRUE(Table::Create(cwd_.Sub("a..b/..t/t.."), kSchema).ok());
  ASSERT_TRUE(Table::Create(cwd_.Sub("db.db/t"), kSchema).ok());
  auto opened = Table::Open(cwd_.Sub("a..b/../db.db/t"));
  EXPECT_TRUE(opened.ok()) << opened.status().ToString();
}

}  // namespace
}  // namespace freshet
