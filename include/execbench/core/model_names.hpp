#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <string>
#include <string_view>

namespace execbench {

/// What a model is, beside its implementation: the one row per model that the server, the judges, the pages, the
/// suites and the tests read. A fifth model is a row here, its file pair in src/models/, and its enum value and
/// factory line (docs/architecture.md, "Adding a model").
struct model_traits {
    std::string_view name;  ///< what --model takes, and pages print
    std::string_view idiom;  ///< how it runs a request, in a few words (--help)
    /// A request that waits (a delay, a downstream call, a query) holds one of the model's threads while it waits,
    /// so the threads bound how many requests are served at once (Little's law: threads / wait), not the cores.
    bool wait_holds_thread;
    std::string_view threads_are;  ///< what --threads counts, for help and pages
    /// The default --threads; 0: one per CPU the server may run on.
    unsigned default_threads;
};

/// Every execution model, in the order pages list them.
inline constexpr std::array<model_traits, 4> model_rows{{
    {"pool", "a thread per request", true, "workers, one request each (as Tomcat's)", 200},
    {"fiber", "stackful fibers", false, "carrier threads the fibers run on", 0},
    {"loop", "callbacks on event loops", false, "event loops, one thread each", 0},
    {"coro", "C++20 coroutines on event loops", false, "event loops, one thread each", 0},
}};

namespace detail {
constexpr std::array<std::string_view, model_rows.size()> names_of_rows() noexcept
{
    std::array<std::string_view, model_rows.size()> names{};
    for (std::size_t i = 0; i < model_rows.size(); ++i)
        names[i] = model_rows[i].name;
    return names;
}
}  // namespace detail

/// The execution models by name, in the order pages list them: the one list every area reads (models/ maps it to
/// its enum; load/ and report/ check and order names with it without linking a server).
inline constexpr std::array<std::string_view, model_rows.size()> model_names = detail::names_of_rows();

/// The row of the model named `name`; nullptr for a name that is no model (an arm's own server, nginx).
constexpr const model_traits* traits_of(std::string_view name) noexcept
{
    for (const auto& row : model_rows)
        if (row.name == name)
            return &row;
    return nullptr;
}

/// True when `name` is a model whose waiting requests hold its threads (the thread-per-request pool).
constexpr bool wait_holds_thread(std::string_view name) noexcept
{
    const auto* row = traits_of(name);
    return row != nullptr && row->wait_holds_thread;
}

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
    return traits_of(name) != nullptr;
}

/// The downstream clients by name (bench-server's `--downstream-client`), in the order pages list them: models/ maps
/// them to its enum, load/ checks an arm's option with them without linking a server.
inline constexpr std::array<std::string_view, 3> downstream_client_names{"pooled", "per-call", "curl"};

/// True when `name` is one of downstream_client_names.
constexpr bool is_downstream_client_name(std::string_view name) noexcept
{
    return std::find(downstream_client_names.begin(), downstream_client_names.end(), name) !=
           downstream_client_names.end();
}

}  // namespace execbench
