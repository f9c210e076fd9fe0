#include "realtime/background_copier.h"

#include <pthread.h>
#include <sched.h>

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

namespace freshet::realtime {

namespace {

class BackgroundThread {
 public:
  BackgroundThread() {
    std::thread([this] { Run(); }).detach();
  }

  void Add(std::function<void()> task) {
    {
      std::lock_guard lock(mu_);
      tasks_.push_back(std::move(task));
    }
    ready_.notify_one();
  }

 private:
  void Run() {
    sched_param param{};
    // Best effort: without it the tasks still run, only with ordinary wakeup preemption.
    (void)pthread_setschedparam(pthread_self(), SCHED_BATCH, &param);
    (void)pthread_setname_np(pthread_self(),
                             "freshet-copier");  // for profiles and top -H (15 bytes at most)
    while (true) {
      std::function<void()> task;
      {
        std::unique_lock lock(mu_);
        ready_.wait(lock, [this] { return !tasks_.empty(); });
        task = std::move(tasks_.front());
        tasks_.pop_front();
      }
      task();
    }
  }

  std::mutex mu_;
  std::condition_variable ready_;
  std::deque<std::function<void()>> tasks_;
};

}  // namespace

void RunInBackground(std::function<void()> task) {
  // Never destroyed: the detached thread may outlive static destruction at exit.
  static BackgroundThread* const thread = new BackgroundThread();
  thread->Add(std::move(task));
}

}  // namespace freshet::realtime
