#pragma once

#include <algorithm>
#include <array>
#include <string_view>

namespace execbench {

/// The execution models by name, in the order pages list them: the one list every area reads (models/ maps it to
/// its enum; load/ and report/ check and order names with it without linking a server).
inline constexpr std::array<std::string_view, 3> model_names{"pool", "fiber", "loop"};

/// True when `name` is one of model_names.
constexpr bool is_model_name(std::string_view name) noexcept
{
    return std::find(model_names.begin(), model_names.end(), name) != model_names.end();
}

}  // namespace execbench
