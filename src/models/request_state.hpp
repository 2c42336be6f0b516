#pragma once

#include "execbench/endpoints/request_cycle.hpp"
#include "execbench/http/request_parser.hpp"

#include <boost/beast/core/flat_buffer.hpp>

#include <cstddef>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace execbench::models {

/// What a connection needs only while a request is read and served: its read buffer, parser, cycle (the parsed
/// request, plan and answer) and the serialised head. Taken from `request_spares` when the request's first bytes
/// arrive and given back after its response, so a connection idle between requests holds none of it.
struct request_state {
    /// A state whose requests are served by `app`.
    explicit request_state(endpoints::app& app) : cycle(app) {}

    boost::beast::flat_buffer buffer;
    std::optional<http::request_parser> parser;
    endpoints::request_cycle cycle;
    std::string out;
    /// Answers to pipelined requests that leave with a later answer (`hold_answer`), oldest first.
    std::string held;

    /// Parses what `buffer` holds into `parser` (`http::parse_buffered`). When the head is in, the body is not, and
    /// the client waits to hear `100 Continue` before sending it, the interim answer joins `held`, which every model
    /// writes before it waits for more bytes: so the one rule serves four models (curl waits 1 s otherwise).
    bool parse_buffered(boost::system::error_code& ec);

    /// The answer just built (its head in `out`, its body in the cycle's response) waits in `held` rather than being
    /// written now: true when more of the pipeline is already buffered, the connection stays open and `held` is
    /// small. A model writes `held` before its next wait of any kind (a read, a delay, a call), so an answer waits
    /// only for the answers computed right behind it, never for a clock or another peer; HTTP/1.1 pipelining's
    /// answers then leave as its requests came, many to a write, as drogon sends them.
    bool hold_answer();
    /// True when the request just planned must wait before its answer exists, so what is held is written first.
    [[nodiscard]] bool must_flush_before_work() const noexcept { return !held.empty() && !cycle.answers_at_once(); }
};

/// Spare request states and read buffers, kept so that steady traffic allocates nothing while idle connections hold
/// nothing (docs/models.md, "Memory per connection"). A read buffer is lent only while bytes are being read and parsed,
/// so a request in flight (waiting out a delay, a downstream call) holds no read buffer either. At most `capacity`
/// of each are kept: after a burst, the rest is freed. Locked only when `shared` (fiber's carriers share one); a loop
/// or the pool's poller is one thread and takes no lock on the request path.
class request_spares {
public:
    /// Spares of at most `capacity` states and `capacity` buffers, used from several threads when `shared`.
    explicit request_spares(bool shared, std::size_t capacity = default_capacity) : shared_(shared), capacity_(capacity)
    {
    }

    /// A spare state, or a new one for `app`; its parser is unset.
    std::unique_ptr<request_state> take(endpoints::app& app);
    /// Keeps `state` for reuse (its request finished) or frees it when the spares are full or it grew large.
    void give(std::unique_ptr<request_state> state);
    /// Gives `buffer` (empty, no storage) a spare buffer's storage, when there is one, before bytes are read into it.
    void lend_buffer(boost::beast::flat_buffer& buffer);
    /// Takes back the storage of `buffer` once everything in it has been parsed (it must be empty).
    void return_buffer(boost::beast::flat_buffer& buffer);

    /// Spares kept per list by default: enough for the requests of a busy loop in flight at once, little memory.
    static constexpr std::size_t default_capacity = 256;

private:
    [[nodiscard]] std::unique_lock<std::mutex> lock();

    bool shared_;
    std::size_t capacity_;
    std::mutex mutex_;
    std::vector<std::unique_ptr<request_state>> states_;
    std::vector<boost::beast::flat_buffer> buffers_;
};

}  // namespace execbench::models
