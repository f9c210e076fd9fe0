#include <gtest/gtest.h>

#include <set>
#include <thread>
#include <vector>

#include "io/file_io.h"
#include "testing/fault_injecting_file_io.h"
#include "testing/test_util.h"

namespace freshet::io {
namespace {

using freshet::testing::TempDir;

TEST(PathTest, JoinBaseParent) {
  EXPECT_EQ(JoinPath("/a/b", "c"), "/a/b/c");
  EXPECT_EQ(JoinPath("/a/b/", "c"), "/a/b/c");
  EXPECT_EQ(BaseName("/a/b/snapshot-3"), "snapshot-3");
  EXPECT_EQ(ParentPath("/a/b/snapshot-3"), "/a/b");
  EXPECT_EQ(ParentPath("/x"), "/");
}

TEST(PathTest, TempNamesNeverLookLikeSnapshotsOrSchemas) {
  std::string temp = TempPathFor("/t/snapshot/snapshot-12");
  EXPECT_EQ(ParentPath(temp), "/t/snapshot");
  std::string name(BaseName(temp));
  EXPECT_EQ(name.rfind(".snapshot-12.", 0), 0u) << name;
  EXPECT_EQ(name.substr(name.size() - 4), ".tmp");
  EXPECT_NE(name.rfind("snapshot-", 0), 0u);
  EXPECT_NE(TempPathFor("/t/x"), TempPathFor("/t/x"));
}

TEST(LocalFileIOTest, WriteReadListDelete) {
  TempDir dir;
  auto fs = LocalFileIO();
  std::string path = dir.Sub("a/b/file.bin");
  ASSERT_OK(fs->WriteFile(path, std::string("hello\0world", 11)));
  ASSERT_OK_AND_ASSIGN(std::string back, fs->ReadFile(path));
  EXPECT_EQ(back, std::string("hello\0world", 11));
  ASSERT_OK_AND_ASSIGN(auto file, fs->OpenForRead(path));
  ASSERT_OK_AND_ASSIGN(std::string middle, file->ReadAt(6, 100));
  EXPECT_EQ(middle, "world");
  ASSERT_OK_AND_ASSIGN(auto listing, fs->ListDir(dir.Sub("a/b")));
  ASSERT_EQ(listing.size(), 1u);
  EXPECT_EQ(listing[0].name, "file.bin");
  EXPECT_EQ(listing[0].size, 11);
  ASSERT_OK_AND_ASSIGN(auto missing, fs->ListDir(dir.Sub("nope")));
  EXPECT_TRUE(missing.empty());
  ASSERT_OK(fs->Delete(dir.Sub("a"), /*recursive=*/true));
  ASSERT_OK_AND_ASSIGN(bool exists, fs->Exists(path));
  EXPECT_FALSE(exists);
}

TEST(LocalFileIOTest, MissingFileIsNotFoundAndNamesThePath) {
  TempDir dir;
  auto result = LocalFileIO()->ReadFile(dir.Sub("snapshot-9"));
  ASSERT_FALSE(result.ok());
  EXPECT_TRUE(result.status().IsNotFound());
  EXPECT_NE(result.status().message().find("snapshot-9"), std::string::npos);
}

TEST(LocalFileIOTest, PublishNewNeverReplaces) {
  TempDir dir;
  auto fs = LocalFileIO();
  std::string path = dir.Sub("snapshot/snapshot-1");
  ASSERT_OK_AND_ASSIGN(bool first, fs->TryPublishNew(path, "one"));
  EXPECT_TRUE(first);
  ASSERT_OK_AND_ASSIGN(bool second, fs->TryPublishNew(path, "two"));
  EXPECT_FALSE(second);
  ASSERT_OK_AND_ASSIGN(std::string content, fs->ReadFile(path));
  EXPECT_EQ(content, "one");
  ASSERT_OK_AND_ASSIGN(auto listing, fs->ListDir(dir.Sub("snapshot")));
  EXPECT_EQ(listing.size(), 1u) << "temp files must be cleaned up";
}

TEST(LocalFileIOTest, ConcurrentPublishersExactlyOneWins) {
  TempDir dir;
  auto fs = LocalFileIO();
  constexpr int kThreads = 8;
  for (int round = 0; round < 20; ++round) {
    std::string path = dir.Sub("snapshot-" + std::to_string(round));
    std::atomic<int> winners{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        auto won = fs->TryPublishNew(path, "writer-" + std::to_string(t));
        if (won.ok() && *won) winners++;
      });
    }
    for (auto& th : threads) th.join();
    EXPECT_EQ(winners.load(), 1) << "round " << round;
  }
}

TEST(LocalFileIOTest, PublishReplaceOverwritesHints) {
  TempDir dir;
  auto fs = LocalFileIO();
  std::string latest = dir.Sub("snapshot/LATEST");
  ASSERT_OK(fs->PublishReplace(latest, "1"));
  ASSERT_OK(fs->PublishReplace(latest, "2"));
  ASSERT_OK_AND_ASSIGN(std::string content, fs->ReadFile(latest));
  EXPECT_EQ(content, "2");
}

TEST(FaultInjectingFileIOTest, FailsTheChosenOperationOnly) {
  TempDir dir;
  auto faulty = std::make_shared<FaultInjectingFileIO>(LocalFileIO());
  // Count the operations of one publish, then fail each in turn.
  ASSERT_OK_AND_ASSIGN(bool ok, faulty->TryPublishNew(dir.Sub("probe"), "x"));
  ASSERT_TRUE(ok);
  int64_t ops = faulty->operation_count();
  ASSERT_GE(ops, 4);
  for (int64_t i = 0; i < ops; ++i) {
    faulty->Reset();
    faulty->FailOperationAt(i);
    std::string path = dir.Sub("target-" + std::to_string(i));
    auto result = faulty->TryPublishNew(path, "payload");
    EXPECT_EQ(faulty->injected_failures(), 1) << "operation " << i;
    ASSERT_FALSE(result.ok()) << "operation " << i;
    EXPECT_TRUE(result.status().IsIOError());
    EXPECT_NE(result.status().message().find("injected fault"), std::string::npos);
    // Nothing half-written is left at the target.
    ASSERT_OK_AND_ASSIGN(bool exists, LocalFileIO()->Exists(path));
    EXPECT_FALSE(exists) << "operation " << i;
  }
}

TEST(FaultInjectingFileIOTest, PredicateFailsMatchingPaths) {
  TempDir dir;
  auto faulty = std::make_shared<FaultInjectingFileIO>(LocalFileIO());
  faulty->FailWhen([](FileOp op, const std::string& path) {
    return op == FileOp::kOpenForWrite && path.find("manifest") != std::string::npos;
  });
  EXPECT_FALSE(faulty->WriteFile(dir.Sub("manifest-1"), "x").ok());
  EXPECT_OK(faulty->WriteFile(dir.Sub("data-1"), "x"));
}

}  // namespace
}  // namespace freshet::io
