#include "execbench/load/engine/prepared_request.hpp"

#include <algorithm>
#include <cctype>

namespace execbench::load {

prepared_request prepare_request(const request_spec& spec, const target& t)
{
    prepared_request p;
    p.weight = spec.weight;
    p.from = spec.from;
    p.until = spec.until.value_or(duration::max());
    auto path = t.base_path + spec.path;
    p.label = spec.method + " " + path;
    std::string b;  // the head without its end, and without a Connection header
    std::string connection;
    b.reserve(256 + spec.body.size());
    b += spec.method + " " + path + " HTTP/1.1\r\nHost: " + t.host_header + "\r\n";
    auto& h2 = p.h2;
    h2.method = spec.method;
    h2.scheme = std::string(t.scheme());
    h2.authority = t.host_header;
    h2.path = path;
    h2.body = spec.body;
    bool has_ua = false;
    for (const auto& [k, v] : spec.headers) {
        std::string lower = k;
        std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
        // The body's length is ours to state; a scenario header must not contradict it.
        if (lower == "content-length" || lower == "host")
            continue;
        if (lower == "connection") {
            connection = k + ": " + v + "\r\n";
            continue;
        }
        has_ua = has_ua || lower == "user-agent";
        b += k + ": " + v + "\r\n";
        // HTTP/2 forbids the connection-specific headers (RFC 9113 §8.2.2); the rest go as they are, named in lower
        // case.
        if (lower != "keep-alive" && lower != "proxy-connection" && lower != "transfer-encoding" &&
            lower != "upgrade" && !(lower == "te" && v != "trailers"))
            h2.headers.emplace_back(lower, v);
    }
    if (!has_ua) {
        b += "User-Agent: execbench-load\r\n";
        h2.headers.emplace_back("user-agent", "execbench-load");
    }
    if (!spec.body.empty() || spec.method == "POST" || spec.method == "PUT" || spec.method == "PATCH") {
        b += "Content-Length: " + std::to_string(spec.body.size()) + "\r\n";
        h2.headers.emplace_back("content-length", std::to_string(spec.body.size()));
    }
    p.bytes = b + connection + "\r\n" + spec.body;
    p.closing_bytes = b + "Connection: close\r\n\r\n" + spec.body;
    return p;
}

}  // namespace execbench::load
