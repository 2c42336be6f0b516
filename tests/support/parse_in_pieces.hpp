#pragma once

#include "execbench/http/request_parser.hpp"

#include <boost/asio/buffer.hpp>
#include <boost/beast/http/error.hpp>

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>

namespace execbench::test_support {

/// Feeds `text` to a fresh parser over `storage` in pieces of `step` bytes, keeping what the parser did not consume,
/// as a socket read loop does, until the request is complete or fails; returns the error (need_more when the text
/// ended first).
inline boost::beast::error_code parse_in_pieces(std::string_view text, http::request_storage& storage,
                                                std::size_t step = std::size_t{1} << 20)
{
    namespace be = boost::beast::http;
    http::request_parser parser(storage);
    parser.eager(true);
    std::string pending;
    boost::beast::error_code ec;
    while (!parser.is_done()) {
        if (text.empty() && pending.empty())
            return be::error::need_more;
        auto take = std::min(step, text.size());
        pending.append(text.substr(0, take));
        text.remove_prefix(take);
        auto used = parser.put(boost::asio::buffer(pending), ec);
        if (used == 0 && take == 0)
            return be::error::need_more;
        pending.erase(0, used);
        if (ec == be::error::need_more) {
            ec = {};
            continue;
        }
        if (ec)
            return ec;
    }
    return ec;
}

}  // namespace execbench::test_support
