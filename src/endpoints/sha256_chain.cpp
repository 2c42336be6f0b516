#include "execbench/endpoints/sha256_chain.hpp"

#include <openssl/evp.h>

#include <memory>
#include <new>
#include <stdexcept>
#include <string_view>

namespace execbench::endpoints {

namespace {

// OpenSSL 3 looks up an implementation on every init with EVP_sha256(); an explicitly fetched EVP_MD skips that.
// Fetched once and kept for the life of the process.
const EVP_MD* sha256_md()
{
    static const EVP_MD* const md = [] {
        const EVP_MD* fetched = EVP_MD_fetch(nullptr, "SHA256", nullptr);
        return fetched != nullptr ? fetched : EVP_sha256();
    }();
    return md;
}

struct md_ctx_deleter {
    void operator()(EVP_MD_CTX* ctx) const noexcept { EVP_MD_CTX_free(ctx); }
};

void hash_step(EVP_MD_CTX* ctx, const EVP_MD* md, const void* data, std::size_t size, digest& out)
{
    unsigned int length = 0;
    if (EVP_DigestInit_ex(ctx, md, nullptr) != 1 || EVP_DigestUpdate(ctx, data, size) != 1 ||
        EVP_DigestFinal_ex(ctx, out.data(), &length) != 1 || length != out.size())
        // SHA-256 over memory only fails when OpenSSL itself is broken or out of memory.
        throw std::runtime_error("sha256_chain: OpenSSL digest failed");
}

}  // namespace

digest sha256_chain(std::uint32_t iterations)
{
    const EVP_MD* md = sha256_md();
    std::unique_ptr<EVP_MD_CTX, md_ctx_deleter> ctx(EVP_MD_CTX_new());
    if (!ctx)
        throw std::bad_alloc();
    constexpr std::string_view seed = "execbench";
    digest current{};
    hash_step(ctx.get(), md, seed.data(), seed.size(), current);
    digest next{};
    for (std::uint32_t i = 0; i < iterations; ++i) {
        hash_step(ctx.get(), md, current.data(), current.size(), next);
        current = next;
    }
    return current;
}

void append_hex(const digest& d, std::string& out)
{
    constexpr std::string_view hex_digits = "0123456789abcdef";
    for (const auto byte : d) {
        out.push_back(hex_digits[byte >> 4]);
        out.push_back(hex_digits[byte & 0x0F]);
    }
}

}  // namespace execbench::endpoints
