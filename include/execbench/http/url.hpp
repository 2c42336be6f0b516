#pragma once

#include "execbench/core/result.hpp"

#include <cstdint>
#include <string>
#include <string_view>

namespace execbench::http {

/// An `http://host[:port][/path]` URL, or an `https://` one where the caller takes it.
struct url {
    std::string host;  ///< name or address; IPv6 without brackets
    std::uint16_t port = 80;  ///< 443 by default for https
    std::string target = "/";  ///< path and query, always starting with '/'
    bool tls = false;          ///< https://

    /// "http" or "https".
    [[nodiscard]] std::string_view scheme() const noexcept { return tls ? "https" : "http"; }

    /// "host:port" as sent in a Host header (IPv6 in brackets).
    [[nodiscard]] std::string authority() const;
};

/// The schemes a caller of parse_url takes.
enum class schemes { http, http_or_https };

/// Parses an http URL (or an https one when `accept` says so); other schemes are rejected with a message saying so.
result<url> parse_url(std::string_view text, schemes accept = schemes::http);

/// True when `host` is a loopback name or address (localhost, 127.0.0.0/8, ::1) without resolving it.
bool is_loopback_literal(std::string_view host) noexcept;

}  // namespace execbench::http
