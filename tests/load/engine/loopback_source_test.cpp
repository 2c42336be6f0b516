#include "execbench/load/engine/target.hpp"

#include <catch2/catch.hpp>

#include <set>

using namespace execbench::load;

TEST_CASE("connections to a loopback target spread over 127.1.0.0/22, others keep the kernel's choice", "[load]")
{
    namespace ip = boost::asio::ip;
    ip::tcp::endpoint loopback(ip::make_address("127.0.0.1"), 8080);
    std::set<std::uint32_t> seen;
    for (std::uint32_t i = 0; i < 2 * loopback_source_addresses; ++i) {
        auto a = loopback_source(loopback, i);
        REQUIRE(a.has_value());
        auto bytes = a->to_bytes();
        CHECK(bytes[0] == 127);
        CHECK(bytes[1] == 1);
        CHECK(bytes[2] < 4);
        CHECK(bytes[3] >= 1);
        CHECK(bytes[3] <= 250);
        seen.insert(a->to_uint());
    }
    CHECK(seen.size() == loopback_source_addresses);
    CHECK(loopback_source(ip::tcp::endpoint(ip::make_address("127.9.9.9"), 80), 3).has_value());
    CHECK_FALSE(loopback_source(ip::tcp::endpoint(ip::make_address("10.200.0.2"), 8080), 0).has_value());
    CHECK_FALSE(loopback_source(ip::tcp::endpoint(ip::make_address("::1"), 8080), 0).has_value());
}
