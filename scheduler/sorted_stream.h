// SortedStream: the elements of a vector in the order std::stable_sort would put them, taken one
// at a time, sorting only what is taken: O(n) to build (a binary heap), O(log n) per element
// taken. For a walk that usually stops after a few of many candidates (the Slurm preemption
// plan walks its candidates until the preemptor fits, scheduler/preemption.cc): sorting every
// candidate per plan was most of the plan's cost. Ties are taken in their order in the vector
// (stable); `less` must be a strict weak order.
#ifndef SCHEDEMU_SCHEDULER_SORTED_STREAM_H_
#define SCHEDEMU_SCHEDULER_SORTED_STREAM_H_

#include <algorithm>
#include <cassert>
#include <cstddef>
#include <utility>
#include <vector>

namespace schedemu {

template <typename T, typename Less>
class SortedStream {
 public:
  explicit SortedStream(std::vector<T> items, Less less = Less{}) : after_{std::move(less)} {
    heap_.reserve(items.size());
    for (size_t i = 0; i < items.size(); ++i) heap_.push_back(Item{std::move(items[i]), i});
    std::make_heap(heap_.begin(), heap_.end(), after_);
  }
  // Elements not taken yet.
  size_t size() const { return heap_.size(); }
  bool empty() const { return heap_.empty(); }
  // Removes and returns the first element not taken yet (the stream must not be empty).
  T Next() {
    assert(!heap_.empty());
    std::pop_heap(heap_.begin(), heap_.end(), after_);
    T v = std::move(heap_.back().value);
    heap_.pop_back();
    return v;
  }

 private:
  struct Item {
    T value;
    size_t index;  // position in the vector: the tie-break that makes the order stable
  };
  // The heap's "less": a max-heap of "comes after" is a min-heap of the stable order.
  struct After {
    Less less;
    bool operator()(const Item& a, const Item& b) const {
      if (less(b.value, a.value)) return true;
      if (less(a.value, b.value)) return false;
      return a.index > b.index;
    }
  };
  After after_;
  std::vector<Item> heap_;
};

}  // namespace schedemu

#endif  // SCHEDEMU_SCHEDULER_SORTED_STREAM_H_
