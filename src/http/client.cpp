#include "execbench/http/client.hpp"

#include "execbench/http/limits.hpp"

#include <boost/asio/error.hpp>
#include <boost/beast/http/error.hpp>

namespace execbench::http {

void write_get_request(const url& server, std::string_view target, std::string& out, bool keep_alive)
{
    out.append("GET ");
    out.append(target);
    out.append(" HTTP/1.1\r\nHost: ");
    out.append(server.authority());
    out.append("\r\nUser-Agent: execbench-downstream\r\nAccept: application/json\r\n");
    if (!keep_alive)
        out.append("Connection: close\r\n");
    out.append("\r\n");
}

void configure(downstream_parser& parser)
{
    parser.header_limit(static_cast<std::uint32_t>(limits::max_header_bytes));
    parser.body_limit(limits::max_downstream_body_bytes);
}

call_outcome call_outcome::from_error(const boost::system::error_code& ec)
{
    // connect(2) found no local port free for the downstream's address (all in use or in TIME_WAIT): the churn of
    // a connection per call, named so that an operator finds it (docs/reliability.md, the port-exhaustion row).
    if (ec == boost::system::errc::address_not_available)
        return {classify_downstream_error(ec), std::string(no_ephemeral_port_detail)};
    return {classify_downstream_error(ec), ec.message()};
}

call_outcome judge_response(const downstream_parser& parser)
{
    auto code = parser.get().result_int();
    if (code >= 200 && code < 300)
        return call_outcome::success();
    return {failure::downstream_bad_answer, "status " + std::to_string(code)};
}

bool is_stale_connection_error(const boost::system::error_code& ec) noexcept
{
    return ec == boost::beast::http::error::end_of_stream || ec == boost::asio::error::eof ||
           ec == boost::asio::error::connection_reset || ec == boost::asio::error::broken_pipe;
}

}  // namespace execbench::http
