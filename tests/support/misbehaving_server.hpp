#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

namespace execbench::test_support {

/// A tiny scriptable HTTP/1.1 server on 127.0.0.1 (port 0) for load-generator tests, running on its own thread.
/// It answers every complete request head (a body is skipped by Content-Length) according to its behaviour,
/// and can stall, die or misbehave on cue.
class misbehaving_server {
public:
    enum class behaviour {
        answer,           ///< 200 "ok", keep-alive
        status,           ///< answer with `status_code()` (e.g. 404, 503), keep-alive
        never_answer,     ///< read requests and say nothing
        garbage,          ///< reply with bytes that are not HTTP
        close_after_one,  ///< answer the first request on a connection, then close it without saying so
        close_mid_answer,  ///< send a head promising 100 bytes and 7 of them, then close
    };

    explicit misbehaving_server(behaviour b = behaviour::answer, int status_code = 200);
    ~misbehaving_server();
    misbehaving_server(const misbehaving_server&) = delete;
    misbehaving_server& operator=(const misbehaving_server&) = delete;

    [[nodiscard]] std::uint16_t port() const noexcept;
    [[nodiscard]] std::string url() const;

    /// Holds every answer that would be sent before `until` until then (a stalled server).
    void stall_until(std::chrono::steady_clock::time_point until);
    /// Closes the listener and every connection: later connects are refused.
    void die();
    /// Requests answered so far.
    [[nodiscard]] std::uint64_t answered() const noexcept;
    /// Connections accepted so far.
    [[nodiscard]] std::uint64_t accepted() const noexcept;
    /// Connections that carried at least one answered request.
    [[nodiscard]] std::uint64_t used() const noexcept;

private:
    struct impl;
    std::unique_ptr<impl> impl_;
};

/// A loopback port that refuses connections for as long as this lives: bound without listening, so no other socket
/// can take it. (A port found free and released may be a parallel test's server by the time it is dialled.)
class refused_port {
public:
    refused_port();
    refused_port(const refused_port&) = delete;
    refused_port& operator=(const refused_port&) = delete;
    ~refused_port();
    [[nodiscard]] std::uint16_t port() const noexcept { return port_; }
    /// "http://127.0.0.1:<port>".
    [[nodiscard]] std::string url() const;

private:
    int fd_ = -1;
    std::uint16_t port_ = 0;
};

}  // namespace execbench::test_support
