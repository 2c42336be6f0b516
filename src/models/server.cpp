#include "execbench/models/server.hpp"

#include "execbench/core/cpus.hpp"
#include "execbench/core/model_names.hpp"

#include "coro.hpp"
#include "fiber.hpp"
#include "loop.hpp"
#include "pool.hpp"

#include <algorithm>
#include <thread>

namespace execbench::models {

std::string_view to_string(model m) noexcept
{
    return model_names[static_cast<std::size_t>(m)];
}

namespace {

/// The value of `all` whose name is `name`, if any.
template <class Enum, std::size_t N>
std::optional<Enum> by_name(const Enum (&all)[N], std::string_view name) noexcept
{
    for (auto value : all)
        if (to_string(value) == name)
            return value;
    return std::nullopt;
}

}  // namespace

std::optional<model> parse_model(std::string_view name) noexcept
{
    return by_name(all_models, name);
}

std::string_view to_string(downstream_client_kind k) noexcept
{
    return downstream_client_names[static_cast<std::size_t>(k)];
}

std::optional<downstream_client_kind> parse_downstream_client(std::string_view name) noexcept
{
    return by_name(all_downstream_clients, name);
}

unsigned default_threads(model m) noexcept
{
    const auto threads = model_rows[static_cast<std::size_t>(m)].default_threads;
    return threads != 0 ? threads : usable_cpu_count();
}

std::unique_ptr<server> make_server(model m, const server_context& context)
{
    switch (m) {
    case model::pool: return make_pool_server(context);
    case model::fiber: return make_fiber_server(context);
    case model::loop: return make_loop_server(context);
    case model::coro: return make_coro_server(context);
    }
    return nullptr;
}

}  // namespace execbench::models
