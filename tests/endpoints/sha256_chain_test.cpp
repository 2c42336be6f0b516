#include "execbench/endpoints/sha256_chain.hpp"

#include <catch2/catch.hpp>

#include <string>

using execbench::endpoints::append_hex;
using execbench::endpoints::sha256_chain;

namespace {

std::string chain_hex(std::uint32_t iterations)
{
    std::string out;
    append_hex(sha256_chain(iterations), out);
    return out;
}

}  // namespace

// Expected digests computed independently with Python's hashlib:
//   python3 -c "import hashlib
//   for n in (0, 1, 2, 20000):
//       h = hashlib.sha256(b'execbench').digest()
//       for _ in range(n): h = hashlib.sha256(h).digest()
//       print(n, h.hex())"
TEST_CASE("sha256_chain matches an independent implementation", "[endpoints]")
{
    CHECK(chain_hex(0) == "e15fe650b1f557a8744fa0f6deff7e0b6d2e96e6138f15aa04fdea32e602fab8");
    CHECK(chain_hex(1) == "c498abd7b867a25d3179fc6fb497f85394e463af3815760780375977f81f3f51");
    CHECK(chain_hex(2) == "885b411c3d75edc4323b70805e8f61bc2e5d3b6f22127ffcacecc6f34ce8f0fd");
    CHECK(chain_hex(20000) == "869575fb3bee4f36723499072576662c01f8f3dc5c129a4f4733db807ddd622a");
}

TEST_CASE("append_hex appends 64 lower-case hex characters", "[endpoints]")
{
    execbench::endpoints::digest d{};
    d[0] = 0xAB;
    d[31] = 0x0F;
    std::string out = "hash=";
    append_hex(d, out);
    CHECK(out.size() == 5 + 64);
    CHECK(out.substr(0, 7) == "hash=ab");
    CHECK(out.substr(out.size() - 2) == "0f");
}
