#pragma once

#include "execbench/endpoints/app.hpp"
#include "execbench/http/client.hpp"
#include "execbench/http/request.hpp"
#include "execbench/http/response.hpp"

#include <boost/system/error_code.hpp>

#include <cstdint>
#include <string>
#include <string_view>

namespace execbench::endpoints {

/// The policy of one request, the same in every model: counting it, planning it, judging stage 1, building the
/// answer and deciding keep-alive. A model reads, waits, calls and writes in its own idiom and asks the cycle the
/// rest, in this order: `begin` (or `reject`), the stages, `finish`.
///
/// Owned by a connection and reused, so its buffers keep their capacity. A request begun and never finished (the
/// connection torn down mid-request) is counted finished when the cycle is destroyed, so no path can leak one.
class request_cycle {
public:
    /// A cycle for requests served by `a`.
    explicit request_cycle(app& a) noexcept : app_(a) {}
    ~request_cycle();
    request_cycle(const request_cycle&) = delete;
    request_cycle& operator=(const request_cycle&) = delete;

    /// A request was read into `storage`: counts it and plans it. True when the plan's stages must run; false when
    /// `response` already holds the answer (an error). While `stopping`, the connection closes after the answer.
    bool begin(bool stopping);
    /// Reading a request failed with `ec`: true when the client should hear why (then `response` holds the 4xx);
    /// false when nobody is left to answer (the peer left, a deadline passed).
    bool reject(const boost::system::error_code& ec);
    /// Turns a request away before it is served (`f`, e.g. overloaded); `response` holds the answer.
    void reject(http::failure f, std::string_view message);

    /// The target of the stage-1 downstream call of the begun request.
    std::string_view downstream_target();
    /// Stage 1 (the call or the delay) ended with `outcome`: true when the work stage runs; false when `response`
    /// holds the failure (502/504).
    bool stage1_done(const http::call_outcome& outcome = {});

    /// Builds the answer of a `work::respond` plan.
    void respond() { app_.respond(plan, response); }
    /// Builds the answer of a compute plan from what it computed.
    void respond(const computation& c) { app_.respond(plan, c, response); }
    /// Builds the answer of a `work::database` plan from what the database answered.
    void respond(const database_answer& a) { app_.respond(plan, a, response); }
    /// Appends stream event `index`, framed (the head before the first, the last chunk after the final one).
    void append_event(std::uint32_t index, std::string& out) { app_.stream_event(plan, index, framing(), out); }
    /// Appends the head of `response` to `out`; its body is written beside it from `response.body`, which is emptied
    /// for a HEAD request once its length is in the head.
    void append_head(std::string& out);
    /// True when the answer in `response` leaves the connection open for another request.
    [[nodiscard]] bool keeps_open() const noexcept;
    /// How the answer in `response` is framed for this request's connection.
    [[nodiscard]] http::framing framing() const noexcept { return {keeps_open(), http10_, http2_}; }
    /// True when the begun request is a HEAD: its answer carries the body's length, not the body.
    [[nodiscard]] bool head_only() const noexcept { return head_; }
    /// True when the planned request's answer is made at once: no wait, call or computation before it.
    [[nodiscard]] bool answers_at_once() const noexcept
    {
        return plan.what == work::respond && plan.delay_millis == 0 && !plan.calls_downstream();
    }

    /// The answer or the stream was written (`written`) or abandoned: counts the request. True when the connection
    /// stays open for the next one.
    bool finish(bool written);

    http::request_storage storage;  ///< where the model's reader puts the request
    struct plan plan;               ///< what the stages are, after `begin`
    http::response response;        ///< the answer being built

private:
    app& app_;
    std::string target_;
    bool open_ = false;     // counted by begin or reject, not yet by finish
    bool started_ = false;  // a parsed request (counted as started) rather than a rejected one
    bool requested_keep_alive_ = false;
    bool stopping_ = false;
    bool http10_ = false;
    bool http2_ = false;
    bool head_ = false;
};

}  // namespace execbench::endpoints
