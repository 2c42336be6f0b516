#pragma once

#include <algorithm>
#include <array>
#include <string>
#include <string_view>

namespace execbench {

/// The execution models by name, in the order pages list them: the one list every area reads (models/ maps it to
/// its enum; load/ and report/ check and order names with it without linking a server).
inline constexpr std::array<std::string_view, 4> model_names{"pool", "fiber", "loop", "coro"};

/// The names joined by `separator`: "pool, fiber, loop, coro" for a message, "pool,fiber,loop,coro" for a flag.
inline std::string joined_model_names(std::string_view separator = ", ")
{
    std::string joined;
    for (auto name : model_names)
        joined.append(joined.empty() ? "" : separator).append(name);
    return joined;
}

/// True when `name` is one of model_names.
constexpr bool is_model_name(std::string_view name) noexcept
{
    return std::find(model_names.begin(), model_names.end(), name) != model_names.end();
}

}  // namespace execbench
