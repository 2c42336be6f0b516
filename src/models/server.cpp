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

std::optional<model> parse_model(std::string_view name) noexcept
{
    for (auto m : all_models)
        if (to_string(m) == name)
            return m;
    return std::nullopt;
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
