#include "execbench/endpoints/sha256_chain.hpp"

#include <catch2/catch.hpp>

#include <chrono>
#include <string>

#include <time.h>

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

TEST_CASE("sha256_chain_for runs the same chain until the thread has used the CPU time asked for", "[endpoints]")
{
    auto thread_cpu = [] {
        timespec ts{};
        ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
        return std::chrono::seconds(ts.tv_sec) + std::chrono::nanoseconds(ts.tv_nsec);
    };
    (void)sha256_chain(1);  // the process's first digest fetches OpenSSL's implementation: not the chain's cost
    for (auto asked : {std::chrono::microseconds(1), std::chrono::microseconds(3'000)}) {
        auto before = thread_cpu();
        auto c = execbench::endpoints::sha256_chain_for(asked);
        auto used = thread_cpu() - before;
        CHECK(used >= asked);
        // The chain stops within a batch of iterations, a few µs; the bound is far wider because a loaded machine
        // charges a thread for more than its own work (CI's ASan build once read 5.9 ms for 3 ms asked). It still
        // catches a chain that misreads its unit or never looks at the clock.
        CHECK(used < 4 * asked + std::chrono::milliseconds(10));
        REQUIRE(c.iterations >= 1);
        CHECK(c.sha256 == sha256_chain(c.iterations));
    }
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
