#pragma once

#include <chrono>
#include <cstddef>

namespace execbench::http {

/// Protocol limits shared by every model; one place so the models cannot drift apart.
struct limits {
    /// Request line plus headers; beyond it the answer is 431.
    static constexpr std::size_t max_header_bytes = 8 * 1024;
    /// Request body; beyond it the answer is 413.
    static constexpr std::size_t max_body_bytes = 1024 * 1024;
    /// A client must deliver a complete request (head and body) within this time once it started one; a client
    /// that misses it is disconnected without an answer, as nginx does (it logs 408 but sends nothing).
    static constexpr std::chrono::seconds header_timeout{10};
    /// An idle keep-alive connection is closed after this time.
    static constexpr std::chrono::seconds idle_timeout{60};
    /// Time allowed for one write to make progress (a client not reading is dropped after it).
    static constexpr std::chrono::seconds write_timeout{60};
    /// Downstream connect and response timeouts.
    static constexpr std::chrono::seconds downstream_connect_timeout{20};
    static constexpr std::chrono::seconds downstream_response_timeout{60};
    /// Largest downstream response body accepted.
    static constexpr std::size_t max_downstream_body_bytes = 1024 * 1024;
};

/// The timeouts a server runs with: the documented `limits` unless an operator (or a test) chose others.
struct timeouts {
    std::chrono::milliseconds header = limits::header_timeout;
    std::chrono::milliseconds idle = limits::idle_timeout;
    std::chrono::milliseconds write = limits::write_timeout;
    std::chrono::milliseconds downstream_connect = limits::downstream_connect_timeout;
    std::chrono::milliseconds downstream_response = limits::downstream_response_timeout;
};

}  // namespace execbench::http
