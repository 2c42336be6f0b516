// bench-server: serves the execbench endpoints under one execution model. Parses options and calls the library.
#include "app_support.hpp"

#include "execbench/core/build_info.hpp"
#include "execbench/core/cpus.hpp"
#include "execbench/core/model_names.hpp"
#include "execbench/endpoints/app.hpp"
#include "execbench/models/movie_database.hpp"
#include "execbench/server/instance.hpp"
#include "execbench/tls/server_context.hpp"

#include <CLI/CLI.hpp>

#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <exception>
#include <iostream>
#include <map>
#include <string>
#include <vector>

namespace {

using namespace execbench;
namespace apps = execbench::apps;
constexpr std::string_view program = "bench-server";

double seconds_of(std::chrono::milliseconds d)
{
    return static_cast<double>(d.count()) / 1000.0;
}

std::chrono::milliseconds millis_of(double seconds)
{
    return std::chrono::milliseconds(std::llround(seconds * 1000));
}

/// bench-server's command line: the server's options, with the durations in seconds and the cache as typed until
/// `settle` converts them.
struct command_line {
    server::options opts;
    std::string model_name = "loop";
    std::string downstream_client = "pooled";
    double shutdown_seconds = 10;
    double header_seconds = seconds_of(opts.timeouts.header);
    double idle_seconds = seconds_of(opts.timeouts.idle);
    double write_seconds = seconds_of(opts.timeouts.write);
    double downstream_seconds = seconds_of(opts.timeouts.downstream_response);
    double db_seconds = seconds_of(opts.db_timeout);
    std::string movies_cache = std::to_string(opts.movies_cache);
    std::string tls_key_type{tls::to_string(opts.tls_files.generated)};
    bool no_http2 = false;
    bool list_endpoints = false;
    bool list_models = false;
};

/// "Execution model: pool (a thread per request), fiber (stackful fibers), ...", from the models' rows.
std::string model_help()
{
    std::string help = "Execution model:";
    for (const auto& row : execbench::model_rows)
        help.append(row.name == execbench::model_rows.front().name ? " " : ", ")
            .append(row.name)
            .append(" (")
            .append(row.idiom)
            .append(")");
    return help;
}

/// What --threads counts under each model, from the models' rows: "pool: workers, one request each (as Tomcat's),
/// default 200; fiber: ..., default one per CPU; ...".
std::string threads_help()
{
    std::string help = "What runs the requests, per model: ";
    for (const auto& row : execbench::model_rows)
        help.append(row.name == execbench::model_rows.front().name ? "" : "; ")
            .append(row.name)
            .append(": ")
            .append(row.threads_are)
            .append(", default ")
            .append(row.default_threads != 0 ? std::to_string(row.default_threads) : "one per CPU it may use");
    return help;
}

/// The model, where it listens, its threads and queues, and the movie database.
void add_server_options(CLI::App& cli, command_line& c)
{
    auto& opts = c.opts;
    cli.add_option(
           "--model", c.model_name,
           model_help())
        ->check(CLI::IsMember(std::vector<std::string>(model_names.begin(), model_names.end())))
        ->capture_default_str();
    cli.add_option("--host", opts.host, "Address to listen on: an IP address or localhost")->capture_default_str();
    cli.add_option("--port", opts.port, "Port to listen on; 0 picks a free one")
        ->check(apps::integer_in(0, 65535, "a port"))
        ->capture_default_str();
    cli.add_option("--threads", opts.threads, threads_help())
        ->check(apps::integer_in(1, 10000, "a number of threads"));
    cli.add_option("--cpu-threads", opts.cpu_threads, "Compute pool size for /cpu-offloaded (default: cores)")
        ->check(apps::integer_in(1, 1024, "a number of threads"));
    cli.add_option("--queue", opts.queue, "pool: connections waiting for a worker before 503")
        ->check(apps::integer_in(1, 1'000'000, "a queue length"))
        ->capture_default_str();
    cli.add_option("--backlog", opts.backlog,
                   "Listen backlog: connections the kernel queues until accepted (capped at net.core.somaxconn)")
        ->check(apps::integer_in(1, 65535, "a backlog"))
        ->capture_default_str();
    cli.add_option("--fiber-stack-kb", opts.fiber_stack_kb, "fiber: stack size per fiber in KiB")
        ->check(apps::integer_in(16, 65536, "a stack size in KiB"))
        ->capture_default_str();
    cli.add_option("--downstream", opts.downstream,
                   "Base URL for delayCallDepth calls, http:// or https:// (default: this server, https:// under "
                   "--tls)");
    cli.add_option("--downstream-client", c.downstream_client,
                   "HTTP client for downstream calls: pooled (keep-alive connections kept for reuse), per-call (a new "
                   "connection for every call) or curl (libcurl: an easy handle per blocking call in pool, a multi "
                   "handle on the event loop otherwise)")
        ->check(CLI::IsMember(std::vector<std::string>(downstream_client_names.begin(), downstream_client_names.end())))
        ->capture_default_str();
    cli.add_option("--downstream-connections", opts.downstream_client.connections,
                   "Connections per downstream client (one per event loop, one in pool); calls over it wait for one; "
                   "0: no cap")
        ->check(apps::integer_in(0, 1'000'000, "a number of connections"))
        ->capture_default_str();
    cli.add_option("--downstream-queue", opts.downstream_client.queue,
                   "Calls per downstream client that may wait for a connection under --downstream-connections; one "
                   "more gets a 503")
        ->check(apps::integer_in(0, 1'000'000, "a queue length"))
        ->capture_default_str();
    cli.add_flag("--downstream-tls-verify", opts.downstream_client.tls.verify,
                 "https downstream: check its certificate and name against the system's CAs (default: not checked, "
                 "as bench-load, for self-signed servers on loopback)");
    cli.add_option("--downstream-ca", opts.downstream_client.tls.ca_file,
                   "https downstream: check its certificate against the CAs in this PEM file (implies "
                   "--downstream-tls-verify)")
        ->check(CLI::ExistingFile);
    cli.add_option("--cpus", opts.cpus, "Run on these CPUs only, e.g. 0, 0-3 or 0,2 (default threads follow them)");
    cli.add_option("--movies-db", opts.movies_db,
                   "SQLite file for movies (default: in memory), or postgresql://USER@HOST:PORT/DB");
    cli.add_flag("--movies-read-only", opts.movies_read_only, "Validate and echo POST /movies without storing");
    cli.add_flag("--movies-sync-commits", opts.movies_sync_commits,
                 "SQLite file: every POST's commit waits for the disk (synchronous=FULL instead of NORMAL)");
    cli.add_option("--movies-cache", c.movies_cache, "Directors whose GET /movies answers are cached; off or 0: none")
        ->capture_default_str();
    cli.add_option("--db-pool", opts.db_pool, "PostgreSQL: connections in the pool")
        ->check(apps::integer_in(1, 1000, "a number of connections"))
        ->capture_default_str();
}

/// Every deadline, in seconds; then what bench-server lists instead of serving.
void add_timeout_options(CLI::App& cli, command_line& c)
{
    cli.add_option("--db-timeout", c.db_seconds, "PostgreSQL: seconds a request waits for a connection and the answer")
        ->transform(apps::seconds_in(0.001, 3600.0))
        ->capture_default_str();
    cli.add_option("--shutdown-timeout", c.shutdown_seconds, "Seconds to drain in-flight requests on SIGTERM")
        ->transform(apps::seconds_in(0.0, 3600.0))
        ->capture_default_str();
    cli.add_option("--header-timeout", c.header_seconds, "Seconds a client has to send a complete request")
        ->transform(apps::seconds_in(0.001, 3600.0))
        ->capture_default_str();
    cli.add_option("--idle-timeout", c.idle_seconds, "Seconds an idle keep-alive connection is kept open")
        ->transform(apps::seconds_in(0.001, 3600.0))
        ->capture_default_str();
    cli.add_option("--write-timeout", c.write_seconds,
                   "Seconds one write may wait for the client to read (or an HTTP/2 answer for its window) before the "
                   "connection is dropped")
        ->transform(apps::seconds_in(0.001, 3600.0))
        ->capture_default_str();
    cli.add_option("--downstream-timeout", c.downstream_seconds, "Seconds to wait for a downstream answer, or for a connection under --downstream-connections (then 504)")
        ->transform(apps::seconds_in(0.001, 3600.0))
        ->capture_default_str();
    cli.add_flag("--list-endpoints", c.list_endpoints, "List the endpoints (path, methods, default delay) and exit");
    cli.add_flag("--list-models", c.list_models, "List the execution models, one per line, and exit");
}

/// --tls and where its certificate comes from.
void add_tls_options(CLI::App& cli, command_line& c)
{
    auto& opts = c.opts;
    auto* tls = cli.add_flag("--tls", opts.tls,
                             "Serve HTTPS (TLS 1.2 and 1.3) on --port, with a self-signed certificate made at start "
                             "unless --tls-cert is given");
    auto* key_type = cli.add_option("--tls-key-type", c.tls_key_type,
                                    "The key of the certificate made at start: p256 (ECDSA P-256), rsa2048 or "
                                    "rsa4096 (the handshake storm's: a signature one core makes ~250 times a second)")
                         ->check(CLI::IsMember({"p256", "rsa2048", "rsa4096"}))
                         ->needs(tls)
                         ->capture_default_str();
    auto* cert = cli.add_option("--tls-cert", opts.tls_files.cert_file,
                                "PEM certificate (chain, leaf first) to serve instead of a generated one; with --tls-key")
                     ->needs(tls)
                     ->excludes(key_type);
    cli.add_option("--tls-key", opts.tls_files.key_file, "PEM private key of --tls-cert")->needs(cert);
    cert->needs("--tls-key");
}

/// --no-http2, --h2-max-streams.
void add_http2_options(CLI::App& cli, command_line& c)
{
    auto& opts = c.opts;
    auto* off = cli.add_flag("--no-http2", c.no_http2,
                             "Serve HTTP/1.1 only: no h2 by ALPN over --tls, no h2c by the connection preface");
    cli.add_option("--h2-max-streams", opts.h2_max_streams,
                   "Concurrent streams per HTTP/2 connection (SETTINGS_MAX_CONCURRENT_STREAMS)")
        ->check(CLI::Range(1u, 10000u))
        ->excludes(off)
        ->capture_default_str();
}

/// --list-endpoints, --list-models.
int list(const command_line& c)
{
    if (c.list_endpoints)
        for (const auto& r : endpoints::route_summaries())
            std::printf("%-16.*s %-10.*s default delay %d ms\n", static_cast<int>(r.path.size()), r.path.data(),
                        static_cast<int>(r.methods.size()), r.methods.data(), r.default_delay_millis);
    else
        for (auto name : model_names)
            std::printf("%.*s\n", static_cast<int>(name.size()), name.data());
    return apps::exit_ok;
}

/// The options as the server takes them: the address resolved, the durations in milliseconds, the cache a number;
/// what cannot be, named.
result<void> settle(command_line& c)
{
    auto& opts = c.opts;
    auto host = server::listen_address(opts.host);
    if (!host)
        return host.err();
    opts.host = *host;
    if (!opts.cpus.empty())
        if (auto cpus = parse_cpu_list(opts.cpus); !cpus)
            return fail("--cpus: " + cpus.err().message);
    opts.model = *models::parse_model(c.model_name);
    opts.http2 = !c.no_http2;
    opts.tls_files.generated = *tls::parse_key_type(c.tls_key_type);
    opts.downstream_client.client = *models::parse_downstream_client(c.downstream_client);
    if (!opts.downstream_client.tls.ca_file.empty())
        opts.downstream_client.tls.verify = true;
    opts.shutdown_timeout = millis_of(c.shutdown_seconds);
    opts.timeouts.header = millis_of(c.header_seconds);
    opts.timeouts.idle = millis_of(c.idle_seconds);
    opts.timeouts.write = millis_of(c.write_seconds);
    opts.timeouts.downstream_response = millis_of(c.downstream_seconds);
    opts.db_timeout = millis_of(c.db_seconds);
    if (c.movies_cache == "off") {
        opts.movies_cache = 0;
    } else {
        const auto* end = c.movies_cache.data() + c.movies_cache.size();
        auto [stop, ec] = std::from_chars(c.movies_cache.data(), end, opts.movies_cache);
        if (ec != std::errc{} || stop != end || c.movies_cache.empty())
            return fail("--movies-cache: '" + c.movies_cache + "' is not off or a number of directors");
    }
    if (!models::is_database_url(opts.movies_db) && opts.movies_db.find("://") != std::string::npos)
        return fail("--movies-db: '" + opts.movies_db + "' is neither a SQLite file nor postgresql://USER@HOST:PORT/DB");
    if (opts.movies_sync_commits && (opts.movies_db.empty() || models::is_database_url(opts.movies_db)))
        return fail("--movies-sync-commits: only with a SQLite file (--movies-db FILE)");
    return {};
}

}  // namespace

int main(int argc, char** argv)
{
    CLI::App cli{"bench-server: the execbench endpoints under one execution model"};
    cli.set_version_flag("--version", execbench::version_string());
    command_line c;
    add_server_options(cli, c);
    add_timeout_options(cli, c);
    add_tls_options(cli, c);
    add_http2_options(cli, c);
    if (auto code = apps::parse_command_line(cli, program, argc, argv))
        return *code;
    if (c.list_endpoints || c.list_models)
        return list(c);
    if (auto settled = settle(c); !settled)
        return apps::usage_error(program, settled.err().message);
    try {
        return server::run(c.opts);
    } catch (const std::exception& e) {
        std::cerr << "bench-server: " << e.what() << "\n";
        return apps::exit_usage;
    }
}
