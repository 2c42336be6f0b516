// Security defaults of bench-server: loopback unless told otherwise, a warning for all interfaces, and no file
// named by a request is ever touched (path traversal is just an unknown path; a path in a parameter is data).
#include "support/child_process.hpp"
#include "support/raw_client.hpp"

#include <catch2/catch.hpp>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

using namespace execbench::test_support;
using namespace std::chrono_literals;

// The local addresses (hex, as /proc/net/tcp writes them) of TCP sockets listening on `port`.
std::vector<std::string> listening_addresses(std::uint16_t port)
{
    std::vector<std::string> found;
    char port_hex[8];
    std::snprintf(port_hex, sizeof port_hex, "%04X", port);
    for (const char* table : {"/proc/net/tcp", "/proc/net/tcp6"}) {
        std::ifstream in(table);
        std::string line;
        std::getline(in, line);  // header
        while (std::getline(in, line)) {
            std::istringstream fields(line);
            std::string slot, local, remote, state;
            fields >> slot >> local >> remote >> state;
            auto colon = local.find(':');
            if (state == "0A" && colon != std::string::npos && local.substr(colon + 1) == port_hex)
                found.push_back(local.substr(0, colon));
        }
    }
    return found;
}

}  // namespace

TEST_CASE("bench-server listens on 127.0.0.1 by default and warns when told to use every interface", "[security]")
{
    if (bench_server_path().empty())
        return;
    {
        server_process server({"--model", "loop", "--threads", "1"});
        CHECK(server.start_line().find("address=127.0.0.1") != std::string::npos);
        auto addresses = listening_addresses(server.port());
        REQUIRE(addresses.size() == 1);
        CHECK(addresses.front() == "0100007F");  // 127.0.0.1, little-endian hex
        CHECK(server.process().stderr_text().find("warning") == std::string::npos);
    }
    {
        server_process server({"--model", "loop", "--threads", "1", "--host", "0.0.0.0"});
        auto addresses = listening_addresses(server.port());
        REQUIRE(addresses.size() == 1);
        CHECK(addresses.front() == "00000000");
        CHECK(server.process().stderr_text().find("warning: listening on all interfaces") != std::string::npos);
    }
}

TEST_CASE("no request names a file the server opens", "[security]")
{
    if (bench_server_path().empty())
        return;
    server_process server({"--model", "fiber", "--threads", "1"});
    const auto descriptors_before = server.process().open_descriptors();
    raw_client client(server.port());
    for (const char* target : {"/../../../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "//etc/passwd",
                               "/io/../../etc/passwd", "/movies/..%2f..%2fetc%2fpasswd", "/.%2e/etc/shadow"}) {
        INFO(target);
        auto r = client.get(target);
        CHECK(r.status == 404);
        CHECK(r.body.find("root:") == std::string::npos);
    }
    // A path inside a parameter is only data.
    auto r = client.get("/movies?delayInMillis=0&directorLastName=..%2F..%2Fetc%2Fpasswd");
    CHECK(r.status == 200);
    CHECK(r.body == "[]");
    // Nothing new stays open beyond our own connection.
    CHECK(eventually([&] { return server.process().open_descriptors() <= descriptors_before + 1; }, 3s));
    server.process().signal(SIGTERM);
    CHECK(server.process().wait_exit(10s) == 0);
}
