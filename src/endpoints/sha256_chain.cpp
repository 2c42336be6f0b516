#include "execbench/endpoints/sha256_chain.hpp"

#include <openssl/evp.h>

#include <time.h>

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

std::chrono::nanoseconds thread_cpu_time() noexcept
{
    timespec ts{};
    ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return std::chrono::seconds(ts.tv_sec) + std::chrono::nanoseconds(ts.tv_nsec);
}

/// The chain from its seed, advanced in batches of `batch` iterations while `more(iterations so far)` says so.
template <typename More>
computation run_chain(std::uint32_t batch, More&& more)
{
    const EVP_MD* md = sha256_md();
    std::unique_ptr<EVP_MD_CTX, md_ctx_deleter> ctx(EVP_MD_CTX_new());
    if (!ctx)
        throw std::bad_alloc();
    constexpr std::string_view seed = "execbench";
    computation out;
    hash_step(ctx.get(), md, seed.data(), seed.size(), out.sha256);
    digest next{};
    while (more(out.iterations))
        for (std::uint32_t i = 0; i < batch; ++i, ++out.iterations) {
            hash_step(ctx.get(), md, out.sha256.data(), out.sha256.size(), next);
            out.sha256 = next;
        }
    return out;
}

}  // namespace

digest sha256_chain(std::uint32_t iterations)
{
    return run_chain(iterations, [iterations](std::uint32_t done) { return done < iterations; }).sha256;
}

computation sha256_chain_for(std::chrono::microseconds cpu)
{
    // An iteration takes a fraction of a microsecond; reading the thread's clock (a system call) every 8 keeps the
    // overshoot near 2 µs and the clock's own cost a few per cent.
    constexpr std::uint32_t batch = 8;
    auto until = thread_cpu_time() + cpu;
    return run_chain(batch, [until](std::uint32_t done) { return done == 0 || thread_cpu_time() < until; });
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
