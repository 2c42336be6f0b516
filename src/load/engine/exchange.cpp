#include "execbench/load/engine/exchange.hpp"

#include <boost/asio/error.hpp>
#include <boost/beast/http/error.hpp>

#include <cstring>

namespace execbench::load {

void response_reader::begin()
{
    parser_.emplace();
    begin_ = end_ = 0;
    if (!buffer_)
        buffer_.reset(new char[buffer_bytes]);
}

void response_reader::next()
{
    parser_.emplace();
}

boost::asio::mutable_buffer response_reader::space() noexcept
{
    return boost::asio::buffer(buffer_.get() + end_, buffer_bytes - end_);
}

read_state response_reader::received(std::size_t n)
{
    end_ += n;
    while (begin_ < end_) {
        boost::system::error_code ec;
        auto used = parser_->put(boost::asio::buffer(buffer_.get() + begin_, end_ - begin_), ec);
        begin_ += used;
        if (ec == boost::beast::http::error::need_more)
            break;
        if (ec)
            return read_state::bad_response;
        if (parser_->is_done())
            break;
    }
    if (begin_ == end_)
        begin_ = end_ = 0;
    if (parser_->is_done())
        return read_state::done;
    if (begin_ > 0) {  // keep the unparsed tail (a head's start) at the front, so the buffer holds a whole head
        std::memmove(buffer_.get(), buffer_.get() + begin_, end_ - begin_);
        end_ -= begin_;
        begin_ = 0;
    }
    return end_ == buffer_bytes ? read_state::bad_response : read_state::need_more;
}

read_state response_reader::closed()
{
    if (!parser_->is_header_done() || !parser_->need_eof())
        return read_state::cut_off;
    boost::system::error_code ec;
    parser_->put_eof(ec);
    return !ec && parser_->is_done() ? read_state::done : read_state::bad_response;
}

error_class connect_failure(const boost::system::error_code& ec, bool timed_out) noexcept
{
    if (timed_out || ec == boost::asio::error::timed_out)
        return error_class::connect_timeout;
    if (ec == boost::asio::error::connection_refused)
        return error_class::connect_refused;
    return error_class::connect_other;
}

bool last_on_socket(std::uint32_t sent_on_socket, std::uint32_t limit) noexcept
{
    return limit != 0 && sent_on_socket >= limit;
}

}  // namespace execbench::load
