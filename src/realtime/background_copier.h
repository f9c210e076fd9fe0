// The real-time layer's background thread for work no caller waits on (copying small written
// batches into blocks). One per process, started on first use, never stopped.
//
// It runs under SCHED_BATCH: a task queued by a Write must not preempt that Write's thread (or a
// query's) when its thread wakes up. On a machine with few cores, an ordinary thread woken for a
// 200 µs copy took the core of the thread that queued it, and the Write's p99 went from ~60 µs to
// ~400 µs; a batch thread gets its fair share without wakeup preemption.
#pragma once

#include <functional>

namespace freshet::realtime {

// Queues `task` (run in queue order, one at a time). Tasks must not block on each other.
void RunInBackground(std::function<void()> task);

}  // namespace freshet::realtime
