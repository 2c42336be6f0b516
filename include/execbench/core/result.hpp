#pragma once

#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace execbench {

/// A failure with a message that names what was wrong and what was expected.
struct error {
    std::string message;
};

/// Either a value or an error; used on parsing and validation paths instead of exceptions.
template <class T>
class result {
public:
    result(T value) : state_(std::in_place_index<0>, std::move(value)) {}
    result(error e) : state_(std::in_place_index<1>, std::move(e)) {}

    /// True when a value is held.
    [[nodiscard]] bool ok() const noexcept { return state_.index() == 0; }
    explicit operator bool() const noexcept { return ok(); }

    /// The value; only valid when ok().
    T& value() & { return std::get<0>(state_); }
    const T& value() const& { return std::get<0>(state_); }
    T&& value() && { return std::get<0>(std::move(state_)); }
    T& operator*() & { return value(); }
    const T& operator*() const& { return value(); }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }
    /// The value, or `fallback` when an error is held.
    T value_or(T fallback) const& { return ok() ? value() : std::move(fallback); }

    /// The error; only valid when !ok().
    const error& err() const { return std::get<1>(state_); }

private:
    std::variant<T, error> state_;
};

/// Success or an error, for an operation that has nothing to return; `return {};` is success.
template <>
class result<void> {
public:
    result() = default;
    result(error e) : error_(std::move(e)) {}

    /// True on success.
    [[nodiscard]] bool ok() const noexcept { return !error_; }
    explicit operator bool() const noexcept { return ok(); }

    /// The error; only valid when !ok().
    const error& err() const { return *error_; }

private:
    std::optional<error> error_;
};

/// Shorthand for returning an error from a function that returns result<T>.
inline error fail(std::string message)
{
    return error{std::move(message)};
}

}  // namespace execbench
