#include "execbench/load/engine/target.hpp"

#include "execbench/http/url.hpp"

#include <boost/asio/io_context.hpp>

namespace execbench::load {

result<url_reading> read_url_option(std::string_view text, bool ad_hoc, bool has_path)
{
    auto u = http::parse_url(text, http::schemes::http_or_https);
    if (!u)
        return fail("--url: " + u.err().message);
    url_reading out;
    const bool has_query = u->target.find_first_of("?#") != std::string::npos;
    if (ad_hoc && !has_path) {
        out.base = std::string(u->scheme()) + "://" + u->authority();
        // A path given, "/" included, is the request, as in wrk, oha and hey; only a URL without one takes the
        // ad-hoc default, and says so.
        if (text.substr(text.find("://") + 3).find('/') != std::string_view::npos)
            out.request_target = u->target;
        else
            out.note = "no path in --url: requesting /epoch-millis, bench-server's endpoint, which waits " +
                       std::to_string(epoch_millis_default_delay_ms) +
                       " ms unless ?delayInMillis= says otherwise (give a path, / included, to request that "
                       "instead)";
        return out;
    }
    if (has_query)
        return fail("--url: '" + std::string(text) + "' has a query, but " +
                    (has_path ? std::string("--path") : std::string("the scenario")) +
                    " gives the request; here the URL is only the server's base: put the query in --path");
    out.base = std::string(text);
    return out;
}

std::string default_delay_note(std::string_view request_target)
{
    auto query_at = request_target.find('?');
    auto path = request_target.substr(0, query_at);
    auto query = query_at == std::string_view::npos ? std::string_view{} : request_target.substr(query_at + 1);
    bool names_delay = ("&" + std::string(query)).find("&delayInMillis=") != std::string::npos;
    if (path != "/epoch-millis" || names_delay)
        return {};
    return " (bench-server waits " + std::to_string(epoch_millis_default_delay_ms) +
           " ms here unless ?delayInMillis= says otherwise)";
}

result<target> resolve_target(std::string_view text, bool allow_remote, const tls::client_options& tls_options)
{
    auto u = http::parse_url(text, http::schemes::http_or_https);
    if (!u)
        return u.err();
    target t;
    t.url = std::string(text);
    t.host = u->host;
    t.port = u->port;
    t.host_header = u->authority();
    t.base_path = u->target == "/" ? "" : u->target;
    while (!t.base_path.empty() && t.base_path.back() == '/')
        t.base_path.pop_back();

    boost::asio::io_context ioc;
    boost::asio::ip::tcp::resolver resolver(ioc);
    boost::system::error_code ec;
    auto results =
        resolver.resolve(u->host, std::to_string(u->port), boost::asio::ip::resolver_base::numeric_service, ec);
    if (ec)
        return fail("cannot resolve '" + u->host + "': " + ec.message());
    bool all_loopback = true;
    std::string first_remote;
    for (const auto& r : results) {
        auto ep = r.endpoint();
        if (!ep.address().is_loopback()) {
            all_loopback = false;
            if (first_remote.empty())
                first_remote = ep.address().to_string();
        }
        t.endpoints.push_back(ep);
    }
    if (t.endpoints.empty())
        return fail("'" + u->host + "' resolved to no address");
    t.local = all_loopback;
    if (!all_loopback && !allow_remote)
        return fail("target " + std::string(text) + " resolves to " + first_remote +
                    ", which is not loopback; benchmarks run on this machine only unless --allow-remote is given");
    if (u->tls) {
        auto ctx = tls::client_context::make(tls_options);
        if (!ctx)
            return ctx.err();
        t.tls = std::move(*ctx);
    }
    return t;
}

std::optional<boost::asio::ip::address_v4> loopback_source(const boost::asio::ip::tcp::endpoint& to,
                                                           std::uint32_t index)
{
    if (!to.address().is_v4() || (to.address().to_v4().to_uint() >> 24) != 127)
        return std::nullopt;
    // 127.1.0.1-127.1.3.250: four blocks of 250, no .0 or .255 (harmless on loopback, but confusing in a trace).
    auto k = index % loopback_source_addresses;
    return boost::asio::ip::address_v4((127u << 24) | (1u << 16) | ((k / 250) << 8) | (k % 250 + 1));
}

}  // namespace execbench::load
