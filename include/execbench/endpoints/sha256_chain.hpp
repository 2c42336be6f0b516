#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <string>

namespace execbench::endpoints {

/// A raw SHA-256 digest.
using digest = std::array<std::uint8_t, 32>;

/// h0 = SHA-256("execbench"), h(i+1) = SHA-256(h(i)) over the 32 raw bytes; returns h(iterations).
/// Pure CPU work (OpenSSL EVP); safe to call from any thread.
digest sha256_chain(std::uint32_t iterations);

/// What a chain run for a CPU time computed: the digest and how many iterations it took.
struct computation {
    digest sha256{};
    std::uint32_t iterations = 0;
};

/// The same chain, continued until the calling thread has used `cpu` of CPU time (at least one iteration).
///
/// Thread CPU time, not wall time: a thread the kernel preempts is not charged, so every request costs the server the
/// same CPU under every model, however many threads share the core.
computation sha256_chain_for(std::chrono::microseconds cpu);

/// Appends the lower-case hex form of `d` (64 characters).
void append_hex(const digest& d, std::string& out);

}  // namespace execbench::endpoints
