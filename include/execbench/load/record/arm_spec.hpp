#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace execbench::load {

/// What an arm's server is: a bench-server model, a command of the user's started fresh for each trial, or a server
/// that is already running (docs/own-server.md is the contract).
enum class arm_kind { model, command, url };

/// One side of a comparison: a name and its server (bench-suite --arm).
struct arm_spec {
    std::string name;                                          ///< labels every CSV row, page and chart
    std::string model;                                         ///< a bench-server model; empty for the other kinds
    std::vector<std::pair<std::string, std::string>> options;  ///< bench-server option (no "--") and value
    std::string command{};  ///< `cmd:` a shell command holding `{port}` (and `{downstream}` when a scenario calls one)
    std::string url{};      ///< `url:` http://HOST:PORT of a server already running on this machine

    [[nodiscard]] arm_kind kind() const noexcept
    {
        return !command.empty() ? arm_kind::command : !url.empty() ? arm_kind::url : arm_kind::model;
    }
};

/// What a command arm's text has replaced by the port bench-suite picked for that trial.
inline constexpr std::string_view port_placeholder = "{port}";
/// What a command arm's text has replaced by the URL of the scenario's downstream server, when it has one.
inline constexpr std::string_view downstream_placeholder = "{downstream}";
/// What a command arm's text has replaced by a TLS scenario's server key ("p256", "rsa2048"; scenario key tls_key).
inline constexpr std::string_view tls_key_placeholder = "{tls_key}";

}  // namespace execbench::load
