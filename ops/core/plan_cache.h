// The kernel plans one session keeps for a node whose input shapes are not all known ahead: one
// plan per key (a shape, a thread count) met so far, most recent first, made when first met. A
// model with symbolic dims meets a few keys at most; a steady stream of the same shape finds its
// plan at the front without allocating.
#pragma once

#include <utility>
#include <vector>

#include "core/op.h"

namespace kiln::ops {

template <typename Key, typename Plan>
class PlanCache : public OpState {
 public:
  // The plan for `key`, made by make() when this session has not met the key yet. The reference
  // stays valid until the next get().
  template <typename Make>
  const Plan& get(const Key& key, Make&& make) {
    for (size_t i = 0; i < entries_.size(); i++) {
      if (!(entries_[i].first == key)) continue;
      if (i > 0) std::swap(entries_[i], entries_[0]);
      return entries_[0].second;
    }
    if (entries_.size() >= kMaxPlans) entries_.pop_back();
    entries_.insert(entries_.begin(), {key, make()});
    return entries_[0].second;
  }

 private:
  static constexpr size_t kMaxPlans = 8;
  std::vector<std::pair<Key, Plan>> entries_;
};

}  // namespace kiln::ops
