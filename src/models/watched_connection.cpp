#include "watched_connection.hpp"

#include "execbench/http/request_parser.hpp"

#include "h2_support.hpp"

#include <boost/asio/error.hpp>

namespace execbench::models {

namespace {
constexpr std::size_t read_chunk = 4096;
}

void watched_connection::close()
{
    deadlines.forget(deadline);
    stream.close();
}

arrival read_arrived(watched_connection& conn, request_state& state, request_spares& spares,
                     const http::timeouts& timeouts, bool stopping)
{
    auto& buffer = state.buffer;
    auto& parser = *state.parser;
    boost::system::error_code ec;
    while (!state.parse_buffered(ec)) {
        if (ec)
            return reading_failed(state.cycle, ec);
        if (buffer.capacity() == 0)
            spares.lend_buffer(buffer);
        const bool first_bytes = buffer.size() == 0 && !parser.got_some();
        auto n = conn.stream.read_some(buffer.prepare(read_chunk), ec);
        if (ec == boost::asio::error::would_block)
            return arrival::incomplete;
        if (ec)
            return reading_failed(state.cycle, ec);
        buffer.commit(n);
        if (first_bytes)
            conn.deadline.expires_after(timeouts.header);
        // One branch per connection, at its first bytes ("PR" waits for more before the parser sees them).
        if (!conn.protocol_told) {
            const auto protocol = conn.stream.protocol(bytes_of(buffer));
            if (protocol == http2::preface_match::undecided)
                continue;
            conn.protocol_told = true;
            if (protocol == http2::preface_match::http2) {
                conn.speaks_http2 = true;
                return arrival::http2;
            }
        }
    }
    conn.deadline.expires_never();
    if (buffer.size() == 0)
        spares.return_buffer(buffer);  // a request in flight holds no read buffer
    return state.cycle.begin(stopping) ? arrival::planned : arrival::answered;
}

arrival reading_failed(endpoints::request_cycle& cycle, const boost::system::error_code& ec)
{
    return cycle.reject(ec) ? arrival::answered : arrival::closed;
}

}  // namespace execbench::models
