// LruCache's budget and recency, the values a Put drops, and ReleaseInBackground, which frees
// dropped values on another thread.
#include "common/lru_cache.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>
#include <vector>

#include "common/background_release.h"

namespace freshet {
namespace {

using Shared = std::shared_ptr<const int>;

TEST(LruCacheTest, PutHandsOverTheReplacedAndTheEvictedValues) {
  LruCache<Shared> cache;
  std::vector<Shared> dropped;
  cache.Put("a", std::make_shared<const int>(1), 1, 2, &dropped);
  cache.Put("b", std::make_shared<const int>(2), 1, 2, &dropped);
  EXPECT_TRUE(dropped.empty());
  ASSERT_TRUE(cache.Get("a").has_value());  // "b" is now the least recently used
  cache.Put("a", std::make_shared<const int>(10), 1, 2, &dropped);
  ASSERT_EQ(dropped.size(), 1u);
  EXPECT_EQ(*dropped[0], 1);  // replaced
  dropped.clear();
  cache.Put("c", std::make_shared<const int>(3), 1, 2, &dropped);
  ASSERT_EQ(dropped.size(), 1u);
  EXPECT_EQ(*dropped[0], 2);  // evicted: "b" was used least recently
  EXPECT_FALSE(cache.Get("b").has_value());
  EXPECT_EQ(**cache.Get("a"), 10);
  EXPECT_EQ(**cache.Get("c"), 3);
  // An entry over the whole budget stays, alone.
  dropped.clear();
  cache.Put("big", std::make_shared<const int>(4), 5, 2, &dropped);
  EXPECT_EQ(dropped.size(), 2u);
  EXPECT_EQ(cache.cost(), 5);
  EXPECT_EQ(**cache.Get("big"), 4);
}

TEST(LruCacheTest, DroppedValuesAreFreedWhenNotHandedOver) {
  LruCache<Shared> cache;
  auto first = std::make_shared<const int>(1);
  std::weak_ptr<const int> watch = first;
  cache.Put("a", std::move(first), 1, 1);
  cache.Put("b", std::make_shared<const int>(2), 1, 1);
  EXPECT_TRUE(watch.expired());
}

template <typename T>
bool ExpiresWithin(const std::weak_ptr<T>& watch, std::chrono::seconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!watch.expired()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

TEST(BackgroundReleaseTest, ReleasedObjectsAreFreedOnAnotherThread) {
  // The destructor records the thread it ran on.
  struct Recorder {
    std::atomic<std::thread::id>* freed_on;
    ~Recorder() { freed_on->store(std::this_thread::get_id()); }
  };
  std::atomic<std::thread::id> freed_on{};
  auto object = std::make_shared<const Recorder>(Recorder{&freed_on});
  std::weak_ptr<const Recorder> watch = object;
  std::vector<std::shared_ptr<const Recorder>> objects;
  objects.push_back(std::move(object));
  ReleaseInBackground(std::move(objects));
  ASSERT_TRUE(ExpiresWithin(watch, std::chrono::seconds(10)));
  // The control block may outlive the object by a moment; the destructor has run.
  while (freed_on.load() == std::thread::id()) std::this_thread::yield();
  EXPECT_NE(freed_on.load(), std::this_thread::get_id());
}

TEST(BackgroundReleaseTest, ManyThreadsReleasingConcurrentlyLoseNothing) {
  constexpr int kThreads = 4;
  constexpr int kPerThread = 2000;
  std::vector<std::weak_ptr<const int>> watches(kThreads * kPerThread);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        auto value = std::make_shared<const int>(i);
        watches[t * kPerThread + i] = value;
        std::vector<Shared> batch;
        batch.push_back(std::move(value));
        ReleaseInBackground(std::move(batch));
      }
    });
  }
  for (auto& thread : threads) thread.join();
  for (const auto& watch : watches) ASSERT_TRUE(ExpiresWithin(watch, std::chrono::seconds(10)));
}

}  // namespace
}  // namespace freshet
