#pragma once

#include "execbench/core/result.hpp"

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>

namespace execbench::load {

/// A throwaway PostgreSQL cluster for one run or one test: `initdb` into a temporary folder, `pg_ctl start`
/// listening on 127.0.0.1 at a free port (and a unix socket in that folder), stopped and removed with the object.
///
/// PostgreSQL refuses to run as root, so when this process is root the cluster runs as `nobody` (through
/// `runuser`) in a folder owned by it. The server binaries are found in `$EXECBENCH_PG_BIN` or the newest
/// /usr/lib/postgresql/<version>/bin (Debian's `postgresql` package). Every command runs under a deadline.
class postgres_cluster {
public:
    postgres_cluster() = default;
    /// Stops the server (fast, then immediate) and removes the folder.
    ~postgres_cluster();
    postgres_cluster(const postgres_cluster&) = delete;
    postgres_cluster& operator=(const postgres_cluster&) = delete;

    /// Creates the cluster and starts it; the error names the command that failed and quotes its log.
    result<void> start(std::chrono::seconds deadline = std::chrono::seconds(60));
    /// Stops the server (`pg_ctl stop -m fast`: clients are disconnected), keeping the data.
    result<void> stop(std::chrono::seconds deadline = std::chrono::seconds(30));
    /// Starts the stopped server again on the same port with the same data.
    result<void> restart(std::chrono::seconds deadline = std::chrono::seconds(30));

    /// libpq's URI for the cluster: postgresql://bench@127.0.0.1:<port>/postgres
    [[nodiscard]] std::string url() const;
    [[nodiscard]] std::uint16_t port() const noexcept { return port_; }
    [[nodiscard]] bool running() const noexcept { return running_; }
    /// The last lines of the server's log (for error messages).
    [[nodiscard]] std::string log_tail(std::size_t max_bytes = 600) const;

private:
    result<void> pg_ctl_start(std::chrono::seconds deadline);
    void remove() noexcept;

    std::filesystem::path dir_;
    std::filesystem::path bin_;
    std::uint16_t port_ = 0;
    bool running_ = false;
};

}  // namespace execbench::load
