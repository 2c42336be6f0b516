#include "execbench/server/instance.hpp"

#include "execbench/core/cpus.hpp"
#include "execbench/core/machine.hpp"
#include "execbench/endpoints/movie_store.hpp"
#include "execbench/models/offload_pool.hpp"

#include <boost/asio/ip/address.hpp>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <stdexcept>
#include <thread>

#include <pthread.h>
#include <unistd.h>

namespace execbench::server {

namespace {

unsigned hardware_threads()
{
    return usable_cpu_count();
}

endpoints::server_info info_of(const options& opts, unsigned offload_threads, const std::optional<tls::server_context>& tls)
{
    endpoints::server_info info;
    info.model = std::string(models::to_string(opts.model));
    info.threads = opts.threads != 0 ? opts.threads : models::default_threads(opts.model);
    info.cpu_threads = offload_threads;
    info.queue = opts.queue;
    info.fiber_stack_kb = opts.fiber_stack_kb;
    info.address = opts.host;
    info.movies_db = opts.movies_db;
    info.movies_read_only = opts.movies_read_only;
    info.movies_sync_commits = opts.movies_sync_commits;
    info.movies_cache = opts.movies_cache;
    if (models::is_database_url(opts.movies_db)) {
        info.db_pool = opts.db_pool;
        info.db_timeout_ms = opts.db_timeout.count();
    }
    info.header_timeout_ms = opts.timeouts.header.count();
    info.idle_timeout_ms = opts.timeouts.idle.count();
    info.write_timeout_ms = opts.timeouts.write.count();
    info.downstream_timeout_ms = opts.timeouts.downstream_response.count();
    info.downstream_client = std::string(models::to_string(opts.downstream_client.client));
    info.downstream_connections = opts.downstream_client.connections;
    info.downstream_queue = opts.downstream_client.queue;
    info.shutdown_timeout_ms = opts.shutdown_timeout.count();
    auto cap = somaxconn();
    auto asked = static_cast<std::uint64_t>(opts.backlog);
    info.listen_backlog = cap > 0 ? std::min<std::uint64_t>(cap, asked) : asked;
    info.cpus = format_cpu_list(allowed_cpus());
    info.http2 = opts.http2;
    info.h2_max_streams = opts.h2_max_streams;
    if (tls) {
        info.tls = true;
        info.tls_key = tls->key_description();
        info.tls_key_from_file = tls->from_files();
    }
    return info;
}

/// Blocks SIGINT and SIGTERM in every thread (call before any thread starts) and returns the set.
sigset_t block_stop_signals()
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set, nullptr);
    return set;
}

/// The TLS context with --tls: the certificate made or read; throws with the option's message when it cannot be.
std::optional<tls::server_context> open_tls(const options& opts)
{
    if (!opts.tls)
        return std::nullopt;
    auto files = opts.tls_files;
    files.http2 = opts.http2;
    auto made = tls::server_context::make(files);
    if (!made)
        throw std::invalid_argument(made.err().message);
    return std::move(*made);
}

std::unique_ptr<models::movie_database> open_database(const options& opts)
{
    if (!models::is_database_url(opts.movies_db))
        return nullptr;
    if (opts.movies_read_only)
        throw std::invalid_argument("--movies-read-only: only with the SQLite store, not with " + opts.movies_db);
    return std::make_unique<models::movie_database>(
        models::database_options{opts.movies_db, opts.db_pool, opts.db_timeout, opts.movies_cache});
}

}  // namespace

instance::instance(const options& opts)
    : tls_(open_tls(opts)),
      database_(open_database(opts)),
      movies_(database_ ? nullptr
                        : std::make_unique<endpoints::movie_store>(endpoints::movie_store_options{
                              opts.movies_db, opts.movies_read_only, opts.movies_sync_commits, opts.movies_cache})),
      offload_(opts.cpu_threads != 0 ? opts.cpu_threads : hardware_threads()),
      app_(database_ ? endpoints::app(info_of(opts, offload_.threads(), tls_), counters_)
                     : endpoints::app(info_of(opts, offload_.threads(), tls_), *movies_, counters_)),
      context_{.app = app_,
               .offload = offload_,
               .downstream = {},
               .host = opts.host,
               .port = opts.port,
               .threads = app_.info().threads,
               .queue = opts.queue,
               .fiber_stack_kb = opts.fiber_stack_kb,
               .timeouts = opts.timeouts,
               .database = database_.get(),
               .backlog = opts.backlog,
               .tls = tls_ ? &*tls_ : nullptr,
               .downstream_client = opts.downstream_client,
               .http2 = opts.http2,
               .h2_limits = {.max_concurrent_streams = opts.h2_max_streams}}
{
    std::string downstream_text = opts.downstream;
    if (!opts.downstream.empty()) {
        auto parsed = http::parse_url(opts.downstream, http::schemes::http_or_https);
        if (!parsed)
            throw std::invalid_argument("--downstream: " + parsed.err().message);
        context_.downstream = *parsed;
    }
    server_ = models::make_server(opts.model, context_);
    server_->listen();
    if (opts.downstream.empty()) {
        // The downstream defaults to the server itself, whose port is known only now.
        context_.downstream.host = opts.host == "0.0.0.0" ? "127.0.0.1" : opts.host == "::" ? "::1" : opts.host;
        context_.downstream.port = server_->port();
        context_.downstream.tls = tls_.has_value();  // over TLS, the server is its own downstream at an https URL
        downstream_text = std::string(context_.downstream.scheme()) + "://" + context_.downstream.authority();
    }
    app_.set_downstream(downstream_text);
}

instance::~instance()
{
    stop(std::chrono::steady_clock::now());
}

void instance::start()
{
    server_->start();
}

bool instance::stop(std::chrono::steady_clock::time_point deadline)
{
    bool drained = server_->shutdown(deadline);
    offload_.stop();
    return drained;
}

result<std::string> listen_address(std::string_view host)
{
    // Resolving names would make the listen address depend on /etc/hosts and DNS; localhost is the one name people
    // type for a loopback benchmark.
    if (host == "localhost" || host == "localhost.")
        return std::string("127.0.0.1");
    boost::system::error_code ec;
    boost::asio::ip::make_address(std::string(host), ec);
    if (ec)
        return fail("--host: '" + std::string(host) + "' is not an IP address or localhost (e.g. 127.0.0.1, ::1)");
    return std::string(host);
}

int run(const options& opts)
{
    // Before any thread starts, so every thread inherits the mask and default thread counts follow it.
    if (!opts.cpus.empty()) {
        auto cpus = parse_cpu_list(opts.cpus);
        if (!cpus)
            throw std::invalid_argument("--cpus: " + cpus.err().message);
        if (auto pinned = pin_process(*cpus); !pinned)
            throw std::invalid_argument("--cpus: " + pinned.err().message);
    }
    // Signals are taken synchronously by this thread; the model's threads never see them.
    auto stop_signals = block_stop_signals();
    std::signal(SIGPIPE, SIG_IGN);

    if (opts.host == "0.0.0.0" || opts.host == "::")
        std::cerr << "bench-server: warning: listening on all interfaces (" << opts.host
                  << "); execbench is meant for loopback benchmarks\n";

    instance server(opts);
    server.start();

    std::cout << "bench-server model=" << models::to_string(opts.model) << " threads=" << server.threads()
              << " cpu_threads=" << server.cpu_threads() << " address=" << opts.host << " port=" << server.port()
              << " downstream=" << server.downstream()
              << " downstream_client=" << models::to_string(opts.downstream_client.client) << " pid=" << ::getpid();
    if (models::is_database_url(opts.movies_db))
        std::cout << " movies_db=" << opts.movies_db << " db_pool=" << opts.db_pool;
    if (opts.tls)
        std::cout << " tls=" << server.app().info().tls_key;
    std::cout << std::endl;

    int signal_number = 0;
    sigwait(&stop_signals, &signal_number);
    std::cerr << "bench-server: " << (signal_number == SIGINT ? "SIGINT" : "SIGTERM")
              << ": draining in-flight requests (a second signal exits at once)\n";

    // A second signal while draining ends the process at once, as users expect from Ctrl-C twice.
    std::thread second_signal([stop_signals]() mutable {
        int again = 0;
        if (sigwait(&stop_signals, &again) == 0)
            std::_Exit(130);
    });
    second_signal.detach();

    bool drained = server.stop(std::chrono::steady_clock::now() + opts.shutdown_timeout);
    if (!drained) {
        std::cerr << "bench-server: shutdown timeout reached with requests still in flight\n";
        return 1;
    }
    std::cerr << "bench-server: stopped\n";
    return 0;
}

}  // namespace execbench::server
