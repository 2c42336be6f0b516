#pragma once

#include "execbench/core/result.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace execbench::endpoints {

/// The decoded query parameters of one request.
///
/// Parsing does not allocate unless a name or value needs percent-decoding ('%' or '+'). At most
/// `max_parameters` parameters; names and values are views valid while the query string and this object live.
class query_params {
public:
    static constexpr std::size_t max_parameters = 32;

    /// Parses `a=1&b=two`; fails on bad percent-encoding, an empty name, or too many parameters.
    /// Empty segments (`a=1&&b=2`, a trailing '&') are skipped; `flag` without '=' has an empty value.
    static result<query_params> parse(std::string_view query);

    query_params() = default;
    /// Copies and moves re-point views into `decoded_`: a short decoded_ lives in the string object itself (SSO).
    query_params(const query_params& other);
    query_params(query_params&& other) noexcept;
    query_params& operator=(const query_params& other);
    query_params& operator=(query_params&& other) noexcept;
    ~query_params() = default;

    /// The number of parameters.
    [[nodiscard]] std::size_t size() const noexcept { return count_; }
    /// How often `name` occurs.
    [[nodiscard]] std::size_t occurrences(std::string_view name) const noexcept;
    /// The first value of `name`, if present.
    [[nodiscard]] std::optional<std::string_view> get(std::string_view name) const noexcept;

private:
    struct pair {
        std::string_view name;
        std::string_view value;
    };
    std::array<pair, max_parameters> pairs_{};
    std::size_t count_ = 0;
    std::string decoded_;  // backing store for decoded names and values, reserved once so views stay valid

    // After decoded_ changed its buffer, moves every view that pointed into [old_base, old_base + old_size).
    void rebase(const char* old_base, std::size_t old_size) noexcept;
};

/// An integer parameter in [min, max], `fallback` when absent. The error names the parameter and the range,
/// e.g. "delayInMillis must be an integer in 0..60000"; a parameter given twice is an error too.
result<std::int64_t> int_param(const query_params& params, std::string_view name, std::int64_t fallback,
                               std::int64_t min, std::int64_t max);

/// A required, non-empty string parameter of at most `max_bytes` bytes, valid UTF-8.
result<std::string_view> string_param(const query_params& params, std::string_view name, std::size_t max_bytes = 256);

}  // namespace execbench::endpoints
