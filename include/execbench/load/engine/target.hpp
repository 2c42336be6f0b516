#pragma once

#include "execbench/core/result.hpp"
#include "execbench/tls/client_context.hpp"

#include <boost/asio/ip/tcp.hpp>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace execbench::load {

/// The server under test, resolved once before a run.
struct target {
    std::string url;   ///< as given
    std::string host;  ///< host name or address from the URL
    std::uint16_t port = 80;
    std::string host_header;                                ///< value of the Host header
    std::string base_path;                                  ///< path prefix from the URL ("" when the URL has none)
    std::vector<boost::asio::ip::tcp::endpoint> endpoints;  ///< resolved addresses, the first one is used
    bool local = false;                                     ///< every resolved address is loopback
    /// The TLS client context of an https:// target, made once for the run; null for http://.
    std::shared_ptr<const tls::client_context> tls;

    /// "https" for a TLS target, else "http".
    [[nodiscard]] std::string_view scheme() const noexcept { return tls ? "https" : "http"; }
};

/// How `--url` is read. An ad-hoc run without --path takes the URL's path and query as its request target (as wrk,
/// oha and hey do; `/` is `/`) and the server's root as the base; a URL without a path keeps the ad-hoc default,
/// with a note saying so. Otherwise the URL is the server's base (its path a prefix of every request path), and a
/// query in it is an error.
struct url_reading {
    std::string base;                           ///< what resolve_target gets: http[s]://host:port[/prefix]
    std::optional<std::string> request_target;  ///< path with query for the one request of an ad-hoc run
    std::optional<std::string> note;            ///< what the user should hear about the reading
};
result<url_reading> read_url_option(std::string_view url, bool ad_hoc, bool has_path);

/// What bench-server's /epoch-millis waits when a request gives no `delayInMillis` (its route table in
/// endpoints/app.cpp, which the load layer may not include; a test holds the two equal).
inline constexpr int epoch_millis_default_delay_ms = 100;
/// " (bench-server waits 100 ms here unless ?delayInMillis= says otherwise)" for a request target of /epoch-millis
/// that names no delay, so a run of it is not read as the server's speed; "" for any other.
std::string default_delay_note(std::string_view request_target);

/// Parses and resolves `url` (http:// or https://; an https target gets its TLS context, made with `tls_options`).
/// Unless `allow_remote`, a target that does not resolve only to loopback addresses is refused with a message that
/// names the address and the --allow-remote flag.
result<target> resolve_target(std::string_view url, bool allow_remote, const tls::client_options& tls_options = {});

/// How many source addresses loopback_source spreads connections over.
inline constexpr std::uint32_t loopback_source_addresses = 1000;

/// The source address of connection `index` to `to` when `to` is an IPv4 loopback address: one of
/// loopback_source_addresses addresses in 127.1.0.0/22, so that thousands of connections to one address and port do
/// not share one source address's ports and connect()'s search for a free port stays short. Empty for any other
/// target: a network namespace's or a remote address keeps the kernel's choice.
std::optional<boost::asio::ip::address_v4> loopback_source(const boost::asio::ip::tcp::endpoint& to,
                                                           std::uint32_t index);

}  // namespace execbench::load
