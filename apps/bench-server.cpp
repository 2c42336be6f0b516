// bench-server: serves the execbench endpoints under one execution model. Parses options and calls the library.
#include "execbench/core/build_info.hpp"
#include "execbench/core/cpus.hpp"
#include "execbench/server/options.hpp"

#include <CLI/CLI.hpp>

#include <chrono>
#include <exception>
#include <iostream>
#include <map>
#include <string>

int main(int argc, char** argv)
{
    using namespace execbench;
    server::options opts;
    std::string model_name = "loop";
    double shutdown_seconds = 10;
    auto seconds_of = [](std::chrono::milliseconds d) { return static_cast<double>(d.count()) / 1000.0; };
    double header_seconds = seconds_of(opts.timeouts.header);
    double idle_seconds = seconds_of(opts.timeouts.idle);
    double downstream_seconds = seconds_of(opts.timeouts.downstream_response);

    CLI::App cli{"bench-server: the execbench endpoints under one execution model"};
    cli.set_version_flag("--version", execbench::version_string());
    cli.add_option("--model", model_name, "Execution model: pool (thread per request), fiber, loop")
        ->check(CLI::IsMember({"pool", "fiber", "loop"}))
        ->capture_default_str();
    cli.add_option("--host", opts.host, "Address to listen on")->capture_default_str();
    cli.add_option("--port", opts.port, "Port to listen on; 0 picks a free one")->capture_default_str();
    cli.add_option("--threads", opts.threads,
                   "Workers (pool, default 200), carriers (fiber) or event loops (loop); default per model")
        ->check(CLI::Range(1u, 10000u));
    cli.add_option("--cpu-threads", opts.cpu_threads, "Compute pool size for /cpu-offloaded (default: cores)")
        ->check(CLI::Range(1u, 1024u));
    cli.add_option("--queue", opts.queue, "pool: connections waiting for a worker before 503")
        ->check(CLI::Range(std::size_t{1}, std::size_t{1'000'000}))
        ->capture_default_str();
    cli.add_option("--fiber-stack-kb", opts.fiber_stack_kb, "fiber: stack size per fiber in KiB")
        ->check(CLI::Range(16u, 65536u))
        ->capture_default_str();
    cli.add_option("--downstream", opts.downstream, "Base URL for delayCallDepth calls (default: this server)");
    cli.add_option("--cpus", opts.cpus, "Run on these CPUs only, e.g. 0, 0-3 or 0,2 (default threads follow them)");
    cli.add_option("--movies-db", opts.movies_db, "SQLite file for movies (default: in memory)");
    cli.add_flag("--movies-read-only", opts.movies_read_only, "Validate and echo POST /movies without storing");
    cli.add_option("--shutdown-timeout", shutdown_seconds, "Seconds to drain in-flight requests on SIGTERM")
        ->check(CLI::Range(0.0, 3600.0))
        ->capture_default_str();
    cli.add_option("--header-timeout", header_seconds, "Seconds a client has to send a complete request")
        ->check(CLI::Range(0.001, 3600.0))
        ->capture_default_str();
    cli.add_option("--idle-timeout", idle_seconds, "Seconds an idle keep-alive connection is kept open")
        ->check(CLI::Range(0.001, 3600.0))
        ->capture_default_str();
    cli.add_option("--downstream-timeout", downstream_seconds, "Seconds to wait for a downstream answer (then 504)")
        ->check(CLI::Range(0.001, 3600.0))
        ->capture_default_str();

    try {
        cli.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return cli.exit(e);
    } catch (const CLI::CallForVersion& e) {
        return cli.exit(e);
    } catch (const CLI::ParseError& e) {
        std::cerr << "bench-server: " << e.what() << "\nRun with --help for the options.\n";
        return 2;
    }
    if (!opts.cpus.empty()) {
        if (auto cpus = parse_cpu_list(opts.cpus); !cpus) {
            std::cerr << "bench-server: --cpus: " << cpus.err().message << "\nRun with --help for the options.\n";
            return 2;
        }
    }
    opts.model = *models::parse_model(model_name);
    auto millis_of = [](double seconds) { return std::chrono::milliseconds(static_cast<long long>(seconds * 1000)); };
    opts.shutdown_timeout = millis_of(shutdown_seconds);
    opts.timeouts.header = millis_of(header_seconds);
    opts.timeouts.idle = millis_of(idle_seconds);
    opts.timeouts.downstream_response = millis_of(downstream_seconds);

    try {
        return server::run(opts);
    } catch (const std::exception& e) {
        std::cerr << "bench-server: " << e.what() << "\n";
        return 2;
    }
}
