#pragma once

#include "execbench/core/result.hpp"

#include <cstdint>
#include <string>
#include <string_view>

namespace execbench::http {

/// An `http://host[:port][/path]` URL.
struct url {
    std::string host;  ///< name or address; IPv6 without brackets
    std::uint16_t port = 80;
    std::string target = "/";  ///< path and query, always starting with '/'

    /// "host:port" as sent in a Host header (IPv6 in brackets).
    [[nodiscard]] std::string authority() const;
};

/// Parses an http URL; https and other schemes are rejected with a message saying so.
result<url> parse_url(std::string_view text);

/// True when `host` is a loopback name or address (localhost, 127.0.0.0/8, ::1) without resolving it.
bool is_loopback_literal(std::string_view host) noexcept;

}  // namespace execbench::http
