#include "common/background_release.h"

#include <condition_variable>
#include <mutex>
#include <thread>

namespace freshet {
namespace {

class Releaser {
 public:
  void Add(std::vector<std::shared_ptr<const void>> objects) {
    bool wake = false;
    {
      std::lock_guard lock(mu_);
      if (!started_) {
        std::thread([this] { Run(); }).detach();
        started_ = true;
      }
      wake = pending_.empty();  // otherwise the thread is awake or about to look
      for (auto& object : objects) pending_.push_back(std::move(object));
    }
    if (wake) ready_.notify_one();
  }

 private:
  void Run() {
    std::unique_lock lock(mu_);
    for (;;) {
      ready_.wait(lock, [this] { return !pending_.empty(); });
      std::vector<std::shared_ptr<const void>> batch;
      batch.swap(pending_);
      lock.unlock();
      batch.clear();
      lock.lock();
    }
  }

  std::mutex mu_;
  std::condition_variable ready_;
  std::vector<std::shared_ptr<const void>> pending_;
  bool started_ = false;
};

// Never destroyed: the detached thread may be waiting on it when the process exits.
Releaser& TheReleaser() {
  static auto* releaser = new Releaser();
  return *releaser;
}

}  // namespace

void ReleaseInBackground(std::vector<std::shared_ptr<const void>> objects) {
  if (objects.empty()) return;
  TheReleaser().Add(std::move(objects));
}

}  // namespace freshet
