#include "execbench/load/target.hpp"

#include "execbench/http/url.hpp"

#include <boost/asio/io_context.hpp>

namespace execbench::load {

result<target> resolve_target(std::string_view text, bool allow_remote)
{
    auto u = http::parse_url(text);
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
    auto results = resolver.resolve(u->host, std::to_string(u->port), boost::asio::ip::resolver_base::numeric_service,
                                    ec);
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
    return t;
}

}  // namespace execbench::load
