#include "h2_support.hpp"

#include "execbench/http/failure.hpp"

#include "io_server.hpp"

#include <boost/asio/error.hpp>

#include <array>

namespace execbench::models {

h2_slot::h2_slot(io_group& group, endpoints::app& app)
    : state(group.spares.take(app)), timer(group.io.get_executor())
{
}

void h2_wake_slot(const std::unordered_map<std::int32_t, h2_slot*>& streams, const http2::event& e)
{
    if (auto it = streams.find(e.stream); it != streams.end()) {
        (e.what == http2::event::kind::cancelled ? it->second->cancelled : it->second->wanted) = true;
        it->second->timer.cancel();
    }
}

void h2_end_slot(http2::server_session& session, std::int32_t stream, h2_slot& slot, bool went_on)
{
    auto& cycle = slot.state->cycle;
    if (slot.cancelled)
        cycle.finish(false);
    else if (cycle.plan.what != endpoints::work::stream || !went_on)
        h2_answer(session, stream, cycle);
}

h2_read h2_read_arrived(transport& stream, http2::server_session& session)
{
    thread_local std::array<char, 16 * 1024> buffer;
    for (int reads = 0; reads < 4; ++reads) {
        boost::system::error_code ec;
        const auto n = stream.read_some(boost::asio::buffer(buffer.data(), buffer.size()), ec);
        if (ec == boost::asio::error::would_block)
            return h2_read::again;
        if (ec == boost::asio::error::eof) {
            session.peer_closed();
            return h2_read::stop;
        }
        if (ec)
            return h2_read::failed;
        if (!session.receive({buffer.data(), n}))
            return h2_read::stop;
    }
    return h2_read::again;
}

h2_deadline h2_deadline_state(const http2::server_session& session, std::size_t served, bool writing) noexcept
{
    if (writing || session.waits_on_peer())
        return h2_deadline::write;
    if (session.open_streams() > served)
        return h2_deadline::header;
    return session.open_streams() == 0 && served == 0 ? h2_deadline::idle : h2_deadline::none;
}

std::optional<std::chrono::milliseconds> h2_deadline_after(h2_deadline d, const transport& stream,
                                                           const http::timeouts& timeouts) noexcept
{
    switch (d) {
    case h2_deadline::none: return std::nullopt;
    case h2_deadline::idle: return stream.first_byte_timeout(timeouts);
    case h2_deadline::header: return timeouts.header;
    case h2_deadline::write: return timeouts.write;
    }
    return std::nullopt;
}

bool h2_begin(const http2::event& e, endpoints::request_cycle& cycle)
{
    if (e.body_too_large) {
        cycle.reject(http::failure::body_too_large, "request body over the limit");
        return false;
    }
    return cycle.begin(false);
}

void h2_answer(http2::server_session& session, std::int32_t stream, endpoints::request_cycle& cycle)
{
    session.respond(stream, cycle.response, cycle.head_only());
    cycle.finish(true);
}

bool h2_begin_events(http2::server_session& session, std::int32_t stream, endpoints::request_cycle& cycle,
                     std::string& scratch)
{
    http::response head;
    head.content_type = "text/event-stream";
    head.streamed = true;
    if (!session.begin_stream(stream, head)) {
        cycle.finish(false);
        return false;
    }
    return h2_push_event(session, stream, cycle, 0, scratch);
}

bool h2_push_event(http2::server_session& session, std::int32_t stream, endpoints::request_cycle& cycle,
                   std::uint32_t index, std::string& scratch)
{
    scratch.clear();
    cycle.append_event(index, scratch);
    const bool last = index + 1 >= cycle.plan.stream.count;
    session.push(stream, scratch, last);
    if (last)
        cycle.finish(true);
    return !last;
}

}  // namespace execbench::models
