#pragma once

#include "execbench/core/result.hpp"

#include <memory>
#include <optional>
#include <string>
#include <string_view>

struct ssl_ctx_st;  // OpenSSL's SSL_CTX: this header does not include OpenSSL's

namespace execbench::tls {

/// The key a server makes its self-signed certificate with when given no files.
enum class key_type { p256, rsa2048, rsa4096 };

/// "p256", "rsa2048" or "rsa4096".
std::string_view to_string(key_type k) noexcept;
/// The key type named `name`, if any.
std::optional<key_type> parse_key_type(std::string_view name) noexcept;
/// Every key type's name, "p256, rsa2048, rsa4096", for messages.
std::string key_type_list();

/// Where a server's certificate and key come from: made at start with `generated`, or read from PEM files.
struct server_options {
    key_type generated = key_type::p256;  ///< used when `cert_file` is empty
    std::string cert_file;                ///< PEM certificate (a chain, leaf first); with `key_file`
    std::string key_file;                 ///< PEM private key matching `cert_file`
    bool http2 = true;                    ///< ALPN offers `h2` before `http/1.1`; false: `http/1.1` only
};

/// An OpenSSL server context: ALPN choosing `h2` (unless `server_options::http2` is off) or `http/1.1`, TLS 1.2 and 1.3, session tickets and the server-side session cache on, the
/// certificate self-signed in memory at start or read from the user's files. Connections made from it release their
/// buffers while idle (`SSL_MODE_RELEASE_BUFFERS`) and may write partially, as a non-blocking socket does.
/// Thread-safe once made: every model's threads make their connections from one context.
class server_context {
public:
    /// Makes the certificate or reads the files; an error naming the option and the problem when it cannot.
    static result<server_context> make(const server_options& opts);

    /// The OpenSSL context, for `SSL_new`.
    [[nodiscard]] ssl_ctx_st* native_handle() const noexcept { return ctx_.get(); }
    /// The key as /health reports it: "p256", "rsa2048" or "rsa4096" for a generated key, the file's kind otherwise (e.g.
    /// "rsa3072", "ec-secp384r1").
    [[nodiscard]] const std::string& key_description() const noexcept { return key_; }
    /// True when the certificate came from --tls-cert, false when it was made at start.
    [[nodiscard]] bool from_files() const noexcept { return from_files_; }

private:
    struct free_context {
        void operator()(ssl_ctx_st* ctx) const noexcept;
    };
    server_context(std::unique_ptr<ssl_ctx_st, free_context> ctx, std::string key, bool from_files);

    std::unique_ptr<ssl_ctx_st, free_context> ctx_;
    std::string key_;
    bool from_files_ = false;
};

}  // namespace execbench::tls
