#pragma once

#include "execbench/models/server.hpp"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>

namespace execbench::server {

/// Everything `bench-server` can be told; defaults are those the docs list.
struct options {
    models::model model = models::model::loop;
    std::string host = "127.0.0.1";
    std::uint16_t port = 8080;
    unsigned threads = 0;          ///< 0: the model's default
    unsigned cpu_threads = 0;      ///< 0: hardware concurrency
    std::size_t queue = 10000;
    unsigned fiber_stack_kb = 128;
    std::string downstream;        ///< empty: the server itself
    std::string movies_db;         ///< empty: in memory
    bool movies_read_only = false;
    std::chrono::milliseconds shutdown_timeout{10'000};
};

/// Runs a server until SIGINT or SIGTERM; prints the start line to stdout. Returns the process exit code.
/// Throws on start-up failures (bad address, unusable database), which `main` reports.
int run(const options& opts);

}  // namespace execbench::server
