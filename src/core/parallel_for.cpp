#include "core/parallel_for.h"

#include <algorithm>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace caliber {
namespace {

class Pool {
 public:
  explicit Pool(int threads) {
    for (int i = 0; i + 1 < threads; ++i) workers_.emplace_back([this, i] { work(i + 1); });
  }
  ~Pool() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    for (auto& t : workers_) t.join();
  }
  int size() const { return static_cast<int>(workers_.size()) + 1; }

  void run(int chunks, const std::function<void(int)>& chunk) {
    std::lock_guard<std::mutex> serial(serial_);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      chunk_ = &chunk;
      chunks_ = chunks;
      pending_ = chunks - 1;  // chunk 0 runs on the caller
      error_ = nullptr;
      ++generation_;
    }
    wake_.notify_all();
    run_one(chunk, 0);
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [this] { return pending_ == 0; });
    chunk_ = nullptr;
    if (error_) std::rethrow_exception(error_);
  }

 private:
  void run_one(const std::function<void(int)>& chunk, int index) {
    try {
      chunk(index);
    } catch (...) {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!error_) error_ = std::current_exception();
    }
  }

  void work(int index) {
    std::uint64_t seen = 0;
    while (true) {
      const std::function<void(int)>* chunk = nullptr;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
        if (stop_) return;
        seen = generation_;
        if (index >= chunks_) continue;
        chunk = chunk_;
      }
      run_one(*chunk, index);
      {
        std::lock_guard<std::mutex> lock(mutex_);
        --pending_;
      }
      done_.notify_one();
    }
  }

  std::vector<std::thread> workers_;
  std::mutex serial_;
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  const std::function<void(int)>* chunk_ = nullptr;
  int chunks_ = 0;
  int pending_ = 0;
  std::uint64_t generation_ = 0;
  bool stop_ = false;
  std::exception_ptr error_;
};

Pool& pool() {
  static Pool p(parallel_threads());
  return p;
}

}  // namespace

int parallel_threads() {
  const unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : static_cast<int>(n);
}

void parallel_for(std::int64_t n, std::int64_t grain,
                  const std::function<void(std::int64_t, std::int64_t)>& body) {
  if (n <= 0) return;
  // A body that calls parallel_for again runs that loop serially (the pool is busy with it).
  thread_local bool inside = false;
  if (inside) {
    body(0, n);
    return;
  }
  struct Flag {
    bool& f;
    explicit Flag(bool& b) : f(b) { f = true; }
    ~Flag() { f = false; }
  };
  grain = std::max<std::int64_t>(grain, 1);
  Pool& p = pool();
  const std::int64_t chunks64 = std::min<std::int64_t>(p.size(), (n + grain - 1) / grain);
  const int chunks = static_cast<int>(std::max<std::int64_t>(chunks64, 1));
  Flag flag(inside);
  if (chunks == 1) {
    body(0, n);
    return;
  }
  const std::int64_t per = (n + chunks - 1) / chunks;
  p.run(chunks, [&](int i) {
    Flag worker_flag(inside);  // `inside` is thread-local: mark the worker thread too
    const std::int64_t begin = std::min<std::int64_t>(n, i * per);
    const std::int64_t end = std::min<std::int64_t>(n, begin + per);
    if (begin < end) body(begin, end);
  });
}

}  // namespace caliber
