#pragma once

#include "execbench/load/record/measurement.hpp"
#include "execbench/load/engine/prepared_request.hpp"
#include "execbench/load/scenario/scenario.hpp"
#include "execbench/tls/client_context.hpp"

#include <boost/asio/ip/tcp.hpp>

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace execbench::load {

/// Counters the engine publishes while a trial runs (updated a few times per second), read by progress displays.
struct live_counters {
    std::atomic<std::uint64_t> ok{0};
    std::atomic<std::uint64_t> errors{0};
};

/// One load group of a trial.
struct group_plan {
    std::vector<prepared_request> mix;
    load_spec load;
};

/// Everything one trial needs; the engine reads it and does not keep it.
struct trial_plan {
    std::vector<boost::asio::ip::tcp::endpoint> endpoints;
    /// An https:// target's TLS context (outlives the trial: the target holds it); null: cleartext.
    const tls::client_context* tls = nullptr;
    std::string tls_host;     ///< the name the handshake sends (SNI) and, with verification, checks
    bool tls_resume = true;   ///< each connection offers the session its slot's last connection received
    /// HTTP/2: h2 by ALPN over TLS, h2c with prior knowledge in cleartext; false: HTTP/1.1.
    bool http2 = false;
    std::uint32_t streams = 1;  ///< HTTP/2: the requests each connection carries at once (h2load's -m)
    group_plan foreground;
    std::optional<group_plan> background;
    duration background_delay{};
    duration timeout = std::chrono::seconds{60};
    duration connect_timeout = std::chrono::seconds{10};
    /// How long the requests still in flight when the load ends may take before they are given up as
    /// `error_class::interrupted` (k6's gracefulStop); unset: each waits out its timeout.
    std::optional<duration> graceful_stop;
    unsigned threads = 1;
    std::uint64_t seed = 1;                   ///< think times and mix offsets
    const std::atomic<bool>* stop = nullptr;  ///< set it to end the trial early (SIGINT)
    live_counters* live = nullptr;            ///< optional
};

/// Runs one trial on `plan.threads` threads, each with its own io_context and connections. Ends by itself:
/// a burst when every request completed or failed, other shapes after their duration plus at most the request
/// timeout (or the graceful stop, when shorter). Never prints.
trial_measurement run_trial(const trial_plan& plan);

}  // namespace execbench::load
