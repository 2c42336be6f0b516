#pragma once

#include <functional>
#include <string_view>

namespace execbench::stats {

/// Calls `sample(name, labels, value)` for every sample line of a Prometheus text exposition (comments, blank lines
/// and values that are no non-negative number below 1.8e19 skipped); `labels` is what stands between the name and
/// the value, e.g. `{kind="voluntary"}`, or empty.
void for_each_sample(std::string_view exposition,
                     const std::function<void(std::string_view name, std::string_view labels, double value)>& sample);

}  // namespace execbench::stats
