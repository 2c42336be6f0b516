#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace execbench::endpoints {

/// Why a TLS handshake did not complete.
enum class handshake_failure : std::uint8_t {
    plain_http,  ///< cleartext came where a ClientHello was expected (answered 400, then closed)
    tls_error,   ///< the TLS exchange failed: a bad record, no shared version or cipher, a bad ticket
    abandoned,   ///< the connection ended first: the client left, the handshake stalled past the header timeout, or
                 ///< the server stopped
};
inline constexpr std::size_t handshake_failure_count = static_cast<std::size_t>(handshake_failure::abandoned) + 1;

/// The TLS handshakes the server did under `--tls`, counted by the one transport every model reads through;
/// lock-free, read by /metrics and /health.
class tls_counters {
public:
    /// A handshake completed: `resumed` when it resumed a session (a ticket or the session cache), else full.
    void handshake_completed(bool resumed) noexcept
    {
        (resumed ? resumed_ : full_).fetch_add(1, std::memory_order_relaxed);
    }
    /// A handshake ended without completing, for `why`.
    void handshake_failed(handshake_failure why) noexcept
    {
        failed_[static_cast<std::size_t>(why)].fetch_add(1, std::memory_order_relaxed);
    }

    [[nodiscard]] std::uint64_t full() const noexcept { return full_.load(std::memory_order_relaxed); }
    [[nodiscard]] std::uint64_t resumed() const noexcept { return resumed_.load(std::memory_order_relaxed); }
    /// Handshakes that failed for `why`.
    [[nodiscard]] std::uint64_t failed(handshake_failure why) const noexcept
    {
        return failed_[static_cast<std::size_t>(why)].load(std::memory_order_relaxed);
    }
    /// Handshakes that failed for any reason.
    [[nodiscard]] std::uint64_t failed() const noexcept;

    /// Appends the Prometheus text exposition of these counters.
    void render(std::string& out) const;

private:
    std::atomic<std::uint64_t> full_{0};
    std::atomic<std::uint64_t> resumed_{0};
    std::array<std::atomic<std::uint64_t>, handshake_failure_count> failed_{};
};

/// The reason's label in metrics and /health, e.g. "plain_http".
std::string_view to_string(handshake_failure why) noexcept;

}  // namespace execbench::endpoints
