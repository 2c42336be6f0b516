#include "execbench/http/request.hpp"

namespace execbench::http {

void request_storage::clear() noexcept
{
    method_name.clear();
    target.clear();
    content_type.clear();
    body.clear();
    method = verb::other;
    keep_alive = true;
    http10 = false;
    http2 = false;
    expects_continue = false;
}

request request_storage::view() const noexcept
{
    request r;
    r.method = method;
    r.method_name = method_name;
    r.target = target;
    split_target(r.target, r.path, r.query);
    r.content_type = content_type;
    r.body = body;
    r.keep_alive = keep_alive;
    r.http10 = http10;
    r.http2 = http2;
    return r;
}

void split_target(std::string_view target, std::string_view& path, std::string_view& query) noexcept
{
    auto q = target.find('?');
    if (q == std::string_view::npos) {
        path = target;
        query = {};
    } else {
        path = target.substr(0, q);
        query = target.substr(q + 1);
    }
}

}  // namespace execbench::http
