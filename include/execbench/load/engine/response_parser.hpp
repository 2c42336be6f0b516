#pragma once

#include <boost/beast/http/basic_parser.hpp>

#include <cstdint>

namespace execbench::load {

/// An HTTP/1.1 response parser that keeps the status and counts the body without storing it, so parsing a
/// response in steady state allocates nothing. One parser per response: construct a fresh one (e.g. with
/// std::optional::emplace) for the next. Feed it contiguous buffers with `put`; `is_done()` says when the
/// response is complete and `keep_alive()` whether the connection may be reused.
class response_parser final : public boost::beast::http::basic_parser<false> {
public:
    response_parser()
    {
        eager(true);
        body_limit(boost::none);
        header_limit(64 * 1024);
    }

    /// Status code of the response (0 until the status line was read).
    [[nodiscard]] int status() const noexcept { return status_; }
    /// Bytes of body seen so far (decoded, without chunk framing).
    [[nodiscard]] std::uint64_t body_bytes() const noexcept { return body_bytes_; }

private:
    using error_code = boost::beast::error_code;
    using string_view = boost::beast::string_view;

    void on_request_impl(boost::beast::http::verb, string_view, string_view, int, error_code&) override {}
    void on_response_impl(int code, string_view, int, error_code&) override { status_ = code; }
    void on_field_impl(boost::beast::http::field, string_view, string_view, error_code&) override {}
    void on_header_impl(error_code&) override {}
    void on_body_init_impl(const boost::optional<std::uint64_t>&, error_code&) override {}
    std::size_t on_body_impl(string_view body, error_code&) override
    {
        body_bytes_ += body.size();
        return body.size();
    }
    void on_chunk_header_impl(std::uint64_t, string_view, error_code&) override {}
    std::size_t on_chunk_body_impl(std::uint64_t, string_view body, error_code&) override
    {
        body_bytes_ += body.size();
        return body.size();
    }
    void on_finish_impl(error_code&) override {}

    int status_ = 0;
    std::uint64_t body_bytes_ = 0;
};

}  // namespace execbench::load
