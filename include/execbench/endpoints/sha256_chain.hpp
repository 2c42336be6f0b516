#pragma once

#include <array>
#include <cstdint>
#include <string>

namespace execbench::endpoints {

/// A raw SHA-256 digest.
using digest = std::array<std::uint8_t, 32>;

/// h0 = SHA-256("execbench"), h(i+1) = SHA-256(h(i)) over the 32 raw bytes; returns h(iterations).
/// Pure CPU work (OpenSSL EVP); safe to call from any thread.
digest sha256_chain(std::uint32_t iterations);

/// Appends the lower-case hex form of `d` (64 characters).
void append_hex(const digest& d, std::string& out);

}  // namespace execbench::endpoints
