#include "execbench/http/url.hpp"

#include <boost/asio/ip/address.hpp>

#include <charconv>

namespace execbench::http {

std::string url::authority() const
{
    std::string out = host.find(':') != std::string::npos ? "[" + host + "]" : host;
    out += ':';
    out += std::to_string(port);
    return out;
}

result<url> parse_url(std::string_view text, schemes accept)
{
    constexpr std::string_view plain = "http://", secure = "https://";
    const bool tls = accept == schemes::http_or_https && text.substr(0, secure.size()) == secure;
    if (!tls && text.substr(0, plain.size()) != plain) {
        const std::string expected = accept == schemes::http ? "http://" : "http:// or https://";
        if (text.find("://") != std::string_view::npos)
            return fail("URL '" + std::string(text) + "': only " + expected + " is supported");
        return fail("URL '" + std::string(text) + "': expected " + expected + "host[:port][/path]");
    }
    auto rest = text.substr(tls ? secure.size() : plain.size());
    auto slash = rest.find('/');
    auto authority = rest.substr(0, slash);
    url u;
    u.tls = tls;
    if (tls)
        u.port = 443;
    if (slash != std::string_view::npos)
        u.target = std::string(rest.substr(slash));
    std::string_view port_text;
    if (!authority.empty() && authority.front() == '[') {
        auto close = authority.find(']');
        if (close == std::string_view::npos)
            return fail("URL '" + std::string(text) + "': unterminated IPv6 address");
        u.host = std::string(authority.substr(1, close - 1));
        auto after = authority.substr(close + 1);
        if (!after.empty()) {
            if (after.front() != ':')
                return fail("URL '" + std::string(text) + "': expected ':' after IPv6 address");
            port_text = after.substr(1);
        }
    } else {
        auto colon = authority.rfind(':');
        u.host = std::string(authority.substr(0, colon));
        if (colon != std::string_view::npos)
            port_text = authority.substr(colon + 1);
    }
    if (u.host.empty())
        return fail("URL '" + std::string(text) + "': missing host");
    if (!port_text.empty() || authority.find(':') != std::string_view::npos) {
        unsigned port = 0;
        auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
        if (ec != std::errc{} || end != port_text.data() + port_text.size() || port == 0 || port > 65535)
            return fail("URL '" + std::string(text) + "': port must be an integer in 1..65535");
        u.port = static_cast<std::uint16_t>(port);
    }
    return u;
}

bool is_loopback_literal(std::string_view host) noexcept
{
    if (host == "localhost" || host == "localhost.")
        return true;
    boost::system::error_code ec;
    auto address = boost::asio::ip::make_address(std::string(host), ec);
    return !ec && address.is_loopback();
}

}  // namespace execbench::http
