#include "execbench/http/request_parser.hpp"

#include "execbench/http/limits.hpp"

#include <boost/beast/http/error.hpp>

#include <algorithm>
#include <cctype>

namespace execbench::http {

namespace be = boost::beast::http;

namespace {

verb to_verb(be::verb v) noexcept
{
    switch (v) {
    case be::verb::get: return verb::get;
    case be::verb::head: return verb::head;
    case be::verb::post: return verb::post;
    case be::verb::put: return verb::put;
    case be::verb::delete_: return verb::del;
    default: return verb::other;
    }
}

bool has_token(std::string_view list, std::string_view token) noexcept
{
    // Connection is a comma-separated list of case-insensitive tokens.
    std::size_t pos = 0;
    while (pos <= list.size()) {
        auto end = list.find(',', pos);
        if (end == std::string_view::npos)
            end = list.size();
        auto item = list.substr(pos, end - pos);
        while (!item.empty() && (item.front() == ' ' || item.front() == '\t'))
            item.remove_prefix(1);
        while (!item.empty() && (item.back() == ' ' || item.back() == '\t'))
            item.remove_suffix(1);
        if (item.size() == token.size() && std::equal(item.begin(), item.end(), token.begin(), [](char a, char b) {
                return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
            }))
            return true;
        pos = end + 1;
    }
    return false;
}

class request_error_category_impl final : public boost::system::error_category {
public:
    const char* name() const noexcept override { return "execbench.request"; }
    std::string message(int value) const override
    {
        switch (static_cast<request_error>(value)) {
        case request_error::bad_host: return "an HTTP/1.1 request needs exactly one Host header";
        }
        return "request error";
    }
};

}  // namespace

const boost::system::error_category& request_error_category() noexcept
{
    static const request_error_category_impl category;
    return category;
}

boost::system::error_code make_error_code(request_error e) noexcept
{
    return {static_cast<int>(e), request_error_category()};
}

request_parser::request_parser(request_storage& storage) : storage_(storage)
{
    storage_.clear();
    header_limit(static_cast<std::uint32_t>(limits::max_header_bytes));
    body_limit(limits::max_body_bytes);
}

void request_parser::on_request_impl(be::verb method, boost::beast::string_view method_str,
                                     boost::beast::string_view target, int version, boost::beast::error_code& ec)
{
    if (version != 10 && version != 11) {
        ec = be::error::bad_version;
        return;
    }
    // A request target is ASCII (RFC 9112 section 3.2, RFC 3986); Beast lets obs-text through.
    for (char c : target) {
        if (static_cast<unsigned char>(c) >= 0x80) {
            ec = be::error::bad_target;
            return;
        }
    }
    // "METHOD SP target SP HTTP/1.x CRLF"
    header_bytes_ = method_str.size() + target.size() + 12;
    version_ = version;
    storage_.method = to_verb(method);
    storage_.method_name.assign(method_str.data(), method_str.size());
    storage_.target.assign(target.data(), target.size());
}

void request_parser::on_response_impl(int, boost::beast::string_view, int, boost::beast::error_code& ec)
{
    ec = be::error::bad_method;  // a request parser never sees a status line
}

void request_parser::on_field_impl(be::field name, boost::beast::string_view name_string,
                                   boost::beast::string_view value, boost::beast::error_code& ec)
{
    // basic_parser applies header_limit to the bytes of one put() only, and consumes complete fields as they
    // arrive: a head delivered in pieces could exceed the limit by a read's worth. Count the whole head here.
    header_bytes_ += name_string.size() + value.size() + 4;  // "name: value CRLF"
    if (header_bytes_ > limits::max_header_bytes) {
        ec = be::error::header_limit;
        return;
    }
    std::string_view v{value.data(), value.size()};
    if (name == be::field::host) {
        ++host_fields_;
    } else if (name == be::field::transfer_encoding) {
        transfer_encoding_ = true;
    } else if (name == be::field::content_type) {
        storage_.content_type.assign(v);
    } else if (name == be::field::connection) {
        connection_close_ = connection_close_ || has_token(v, "close");
        connection_keep_alive_ = connection_keep_alive_ || has_token(v, "keep-alive");
    } else if (name == be::field::expect) {
        expects_continue_ = has_token(v, "100-continue");
    }
}

void request_parser::on_header_impl(boost::beast::error_code& ec)
{
    // RFC 9112 section 3.2: a server MUST answer 400 to an HTTP/1.1 request with no Host or more than one. A
    // second Host is also how some proxies and servers are made to disagree about where a request goes.
    if ((version_ == 11 && host_fields_ != 1) || host_fields_ > 1) {
        ec = make_error_code(request_error::bad_host);
        return;
    }
    // RFC 9112 section 6.3: with a Transfer-Encoding whose final coding is not chunked the body length cannot be
    // known, and an HTTP/1.0 message with one has faulty framing. Beast would read such a request as having no
    // body and take the body for the next request: the textbook smuggling desync. Refuse it (400, close).
    if (transfer_encoding_ && (version_ == 10 || !chunked())) {
        ec = be::error::bad_transfer_encoding;
        return;
    }
    storage_.keep_alive = version_ == 11 ? !connection_close_ : (connection_keep_alive_ && !connection_close_);
    storage_.http10 = version_ == 10;
    // RFC 9110 section 10.1.1: a server must not send 100 Continue to an HTTP/1.0 client, which never asks for it.
    storage_.expects_continue = expects_continue_ && version_ == 11;
}

void request_parser::on_body_init_impl(const boost::optional<std::uint64_t>& content_length, boost::beast::error_code&)
{
    if (content_length)
        storage_.body.reserve(static_cast<std::size_t>(*content_length));
}

std::size_t request_parser::on_body_impl(boost::beast::string_view body, boost::beast::error_code&)
{
    storage_.body.append(body.data(), body.size());
    return body.size();
}

void request_parser::on_chunk_header_impl(std::uint64_t, boost::beast::string_view, boost::beast::error_code&) {}

std::size_t request_parser::on_chunk_body_impl(std::uint64_t, boost::beast::string_view body,
                                               boost::beast::error_code& ec)
{
    // basic_parser enforces body_limit on chunked bodies too, but only for the declared sizes it has seen.
    if (storage_.body.size() + body.size() > limits::max_body_bytes) {
        ec = be::error::body_limit;
        return 0;
    }
    storage_.body.append(body.data(), body.size());
    return body.size();
}

void request_parser::on_finish_impl(boost::beast::error_code&) {}

bool parse_buffered(request_parser& parser, boost::beast::flat_buffer& buffer, boost::system::error_code& ec)
{
    ec = {};
    while (buffer.size() != 0 && !parser.is_done()) {
        auto used = parser.put(buffer.data(), ec);
        buffer.consume(used);
        if (ec == be::error::need_more) {
            ec = {};
            break;
        }
        if (ec)
            return false;
    }
    return parser.is_done();
}

bool is_parse_error(const boost::system::error_code& ec) noexcept
{
    if (ec == be::error::end_of_stream || ec == be::error::partial_message)
        return false;
    return ec.category() == be::make_error_code(be::error::bad_method).category() ||
           ec.category() == request_error_category();
}

}  // namespace execbench::http
