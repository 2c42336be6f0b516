#include "execbench/core/base64.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

namespace {

std::vector<std::uint8_t> bytes_of(const std::string& s)
{
    return {s.begin(), s.end()};
}

}  // namespace

TEST_CASE("base64 writes and reads RFC 4648's test vectors", "[base64]")
{
    // RFC 4648 section 10.
    const std::pair<std::string, std::string> vectors[] = {{"", ""},
                                                           {"f", "Zg=="},
                                                           {"fo", "Zm8="},
                                                           {"foo", "Zm9v"},
                                                           {"foob", "Zm9vYg=="},
                                                           {"fooba", "Zm9vYmE="},
                                                           {"foobar", "Zm9vYmFy"}};
    for (const auto& [plain, encoded] : vectors) {
        CAPTURE(plain);
        CHECK(execbench::encode_base64(bytes_of(plain)) == encoded);
        auto back = execbench::decode_base64(encoded);
        REQUIRE(back);
        CHECK(*back == bytes_of(plain));
    }
}

TEST_CASE("base64 round-trips every byte value", "[base64]")
{
    std::vector<std::uint8_t> all;
    for (int i = 0; i < 256; ++i)
        all.push_back(static_cast<std::uint8_t>(i));
    auto back = execbench::decode_base64(execbench::encode_base64(all));
    REQUIRE(back);
    CHECK(*back == all);
}

TEST_CASE("base64 refuses text that is not base64", "[base64]")
{
    for (const char* bad : {"Zm9", "Zm9v!A==", "Z===", "Zm=v", "Zm 9v"}) {
        CAPTURE(bad);
        auto r = execbench::decode_base64(bad);
        REQUIRE_FALSE(r);
        CHECK(r.err().message.starts_with("base64: "));
    }
}
