#include "execbench/tls/server_context.hpp"

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

namespace execbench::tls {

namespace {

template <class T, void (*Free)(T*)>
struct openssl_free {
    void operator()(T* p) const noexcept { Free(p); }
};
using pkey_ptr = std::unique_ptr<EVP_PKEY, openssl_free<EVP_PKEY, EVP_PKEY_free>>;
using x509_ptr = std::unique_ptr<X509, openssl_free<X509, X509_free>>;
using extension_ptr = std::unique_ptr<X509_EXTENSION, openssl_free<X509_EXTENSION, X509_EXTENSION_free>>;

// The generated certificate: valid from a minute ago (clocks differ) for a year, for the names a loopback client
// uses; nothing checks it (clients run with -k), but its shape is a server certificate's.
constexpr long valid_seconds = 365L * 24 * 3600;
constexpr const char* subject_alt_names = "DNS:localhost,IP:127.0.0.1,IP:::1";

/// OpenSSL's last error as text, and the error queue emptied.
std::string openssl_error()
{
    std::string text;
    while (auto code = ERR_get_error()) {
        std::array<char, 256> line{};
        ERR_error_string_n(code, line.data(), line.size());
        if (!text.empty())
            text += "; ";
        text += line.data();
    }
    return text.empty() ? "unknown OpenSSL error" : text;
}

pkey_ptr generate_key(key_type k)
{
    // OpenSSL 3.0's EVP key generation: no EC_KEY or RSA objects, which 3.0 deprecates.
    if (k == key_type::p256)
        return pkey_ptr(EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256"));
    return pkey_ptr(EVP_PKEY_Q_keygen(nullptr, nullptr, "RSA", std::size_t{k == key_type::rsa4096 ? 4096u : 2048u}));
}

bool add_extension(X509* cert, int nid, const char* value)
{
    X509V3_CTX ctx;
    X509V3_set_ctx_nodb(&ctx);
    X509V3_set_ctx(&ctx, cert, cert, nullptr, nullptr, 0);
    extension_ptr ext(X509V3_EXT_conf_nid(nullptr, &ctx, nid, value));
    return ext && X509_add_ext(cert, ext.get(), -1) == 1;
}

/// A self-signed certificate for `key`, or null.
x509_ptr self_signed(EVP_PKEY* key)
{
    x509_ptr cert(X509_new());
    if (!cert)
        return nullptr;
    std::array<unsigned char, 16> serial{};
    if (RAND_bytes(serial.data(), static_cast<int>(serial.size())) != 1)
        return nullptr;
    serial[0] &= 0x7f;  // a positive serial number
    auto* bn = BN_bin2bn(serial.data(), static_cast<int>(serial.size()), nullptr);
    const bool serial_set = bn != nullptr && BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(cert.get())) != nullptr;
    BN_free(bn);
    auto* name = X509_get_subject_name(cert.get());
    const auto* cn = reinterpret_cast<const unsigned char*>("execbench");
    const bool ok = serial_set && X509_set_version(cert.get(), X509_VERSION_3) == 1 &&
                    X509_gmtime_adj(X509_getm_notBefore(cert.get()), -60) != nullptr &&
                    X509_gmtime_adj(X509_getm_notAfter(cert.get()), valid_seconds) != nullptr &&
                    X509_set_pubkey(cert.get(), key) == 1 &&
                    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, cn, -1, -1, 0) == 1 &&
                    X509_set_issuer_name(cert.get(), name) == 1 &&
                    add_extension(cert.get(), NID_subject_alt_name, subject_alt_names) &&
                    add_extension(cert.get(), NID_basic_constraints, "critical,CA:FALSE") &&
                    add_extension(cert.get(), NID_ext_key_usage, "serverAuth") &&
                    X509_sign(cert.get(), key, EVP_sha256()) > 0;
    return ok ? std::move(cert) : nullptr;
}

/// What kind of key `key` is, as /health names it: "p256" and "rsa2048" as --tls-key-type spells them.
std::string describe(const EVP_PKEY* key)
{
    if (EVP_PKEY_is_a(key, "RSA"))
        return "rsa" + std::to_string(EVP_PKEY_get_bits(key));
    if (EVP_PKEY_is_a(key, "EC")) {
        std::array<char, 64> group{};
        std::size_t length = 0;
        if (EVP_PKEY_get_group_name(key, group.data(), group.size(), &length) != 1)
            return "ec";
        if (std::strcmp(group.data(), "prime256v1") == 0 || std::strcmp(group.data(), "P-256") == 0)
            return "p256";
        return std::string("ec-") + group.data();
    }
    const char* type = EVP_PKEY_get0_type_name(key);
    return type != nullptr ? type : "unknown";
}

/// Chooses by ALPN: `h2` when the client offers it and HTTP/2 is on (`arg` not null), else `http/1.1` when the client
/// asks for it (h2load --h1 does); a client offering only other protocols goes on without ALPN rather than failing,
/// as nginx does.
int select_protocol(SSL*, const unsigned char** out, unsigned char* outlen, const unsigned char* in,
                    unsigned int inlen, void* arg)
{
    static constexpr unsigned char h2_then_http11[] = {2, 'h', '2', 8, 'h', 't', 't', 'p', '/', '1', '.', '1'};
    static constexpr unsigned char http11[] = {8, 'h', 't', 't', 'p', '/', '1', '.', '1'};
    const bool http2 = arg != nullptr;
    const unsigned char* ours = http2 ? h2_then_http11 : http11;
    const unsigned int ours_size = http2 ? sizeof h2_then_http11 : sizeof http11;
    unsigned char* selected = nullptr;
    // The server's order wins: SSL_select_next_proto takes the first of `ours` the client offers.
    if (SSL_select_next_proto(&selected, outlen, ours, ours_size, in, inlen) != OPENSSL_NPN_NEGOTIATED)
        return SSL_TLSEXT_ERR_NOACK;
    *out = selected;
    return SSL_TLSEXT_ERR_OK;
}

/// An empty error when `path` can be opened for reading, else one naming `option`, the file and why.
result<void> readable(std::string_view option, const std::string& path)
{
    std::ifstream file(path);
    if (!file)
        return fail(std::string(option) + ": cannot read '" + path + "': " + std::strerror(errno));
    return {};
}

/// Loads the user's certificate chain and key into `ctx`; the key's description, or an error naming the option.
result<std::string> load_files(SSL_CTX* ctx, const server_options& opts)
{
    if (opts.key_file.empty())
        return fail("--tls-cert: needs --tls-key, the certificate's private key");
    if (opts.cert_file.empty())
        return fail("--tls-key: needs --tls-cert, the certificate the key belongs to");
    if (auto ok = readable("--tls-cert", opts.cert_file); !ok)
        return ok.err();
    if (auto ok = readable("--tls-key", opts.key_file); !ok)
        return ok.err();
    if (SSL_CTX_use_certificate_chain_file(ctx, opts.cert_file.c_str()) != 1)
        return fail("--tls-cert: '" + opts.cert_file + "' is not a PEM certificate: " + openssl_error());
    if (SSL_CTX_use_PrivateKey_file(ctx, opts.key_file.c_str(), SSL_FILETYPE_PEM) != 1) {
        const auto reason = ERR_GET_REASON(ERR_peek_last_error());
        if (reason == X509_R_KEY_VALUES_MISMATCH || reason == X509_R_KEY_TYPE_MISMATCH)
            return fail("--tls-key: '" + opts.key_file + "' does not match the certificate in '" + opts.cert_file +
                        "': " + openssl_error());
        return fail("--tls-key: '" + opts.key_file + "' is not a PEM private key: " + openssl_error());
    }
    if (SSL_CTX_check_private_key(ctx) != 1)
        return fail("--tls-key: '" + opts.key_file + "' does not match the certificate in '" + opts.cert_file +
                    "': " + openssl_error());
    return describe(SSL_CTX_get0_privatekey(ctx));
}

/// Makes a key of `k` and its self-signed certificate and puts both in `ctx`.
result<std::string> generate(SSL_CTX* ctx, key_type k)
{
    auto key = generate_key(k);
    if (!key)
        return fail("TLS: cannot generate a " + std::string(to_string(k)) + " key: " + openssl_error());
    auto cert = self_signed(key.get());
    if (!cert)
        return fail("TLS: cannot make a self-signed certificate: " + openssl_error());
    if (SSL_CTX_use_certificate(ctx, cert.get()) != 1 || SSL_CTX_use_PrivateKey(ctx, key.get()) != 1)
        return fail("TLS: cannot use the generated certificate: " + openssl_error());
    return std::string(to_string(k));
}

}  // namespace

namespace {

/// Each key type's name, as --tls-key-type, scenario files and /health spell it.
constexpr std::pair<key_type, std::string_view> key_names[] = {
    {key_type::p256, "p256"}, {key_type::rsa2048, "rsa2048"}, {key_type::rsa4096, "rsa4096"}};

}  // namespace

std::string_view to_string(key_type k) noexcept
{
    for (const auto& [type, name] : key_names)
        if (type == k)
            return name;
    return "p256";
}

std::optional<key_type> parse_key_type(std::string_view name) noexcept
{
    for (const auto& [type, spelled] : key_names)
        if (spelled == name)
            return type;
    return std::nullopt;
}

std::string key_type_list()
{
    std::string out;
    for (const auto& [type, name] : key_names)
        out += (out.empty() ? "" : ", ") + std::string(name);
    return out;
}

void server_context::free_context::operator()(ssl_ctx_st* ctx) const noexcept
{
    SSL_CTX_free(ctx);
}

server_context::server_context(std::unique_ptr<ssl_ctx_st, free_context> ctx, std::string key, bool from_files)
    : ctx_(std::move(ctx)), key_(std::move(key)), from_files_(from_files)
{
}

result<server_context> server_context::make(const server_options& opts)
{
    ERR_clear_error();
    std::unique_ptr<ssl_ctx_st, free_context> ctx(SSL_CTX_new(TLS_server_method()));
    if (!ctx)
        return fail("TLS: cannot create a context: " + openssl_error());
    SSL_CTX_set_min_proto_version(ctx.get(), TLS1_2_VERSION);
    // Renegotiation is a TLS 1.2 feature no benchmark client uses and a known denial-of-service lever; without it a
    // read never needs to write, nor a write to read, once the handshake is done. The client's cipher order is kept,
    // as nginx keeps it by default (ssl_prefer_server_ciphers off), so both serve a client the same cipher.
    SSL_CTX_set_options(ctx.get(), SSL_OP_NO_RENEGOTIATION);
    // The models write what a non-blocking socket takes (partial writes, retried from wherever the rest is then
    // gathered) and idle connections hold no record buffers (about 34 KB each otherwise, issue 55).
    SSL_CTX_set_mode(ctx.get(),
                     SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER | SSL_MODE_RELEASE_BUFFERS);
    // Resumption for both versions: tickets (on by default, TLS 1.2 and 1.3) and the session cache behind session
    // IDs, which needs an ID context.
    SSL_CTX_set_session_cache_mode(ctx.get(), SSL_SESS_CACHE_SERVER);
    static constexpr unsigned char id_context[] = "execbench";
    SSL_CTX_set_session_id_context(ctx.get(), id_context, sizeof id_context - 1);
    // The callback's argument says only whether h2 is on: any non-null pointer will do.
    static int http2_on = 1;
    SSL_CTX_set_alpn_select_cb(ctx.get(), select_protocol, opts.http2 ? &http2_on : nullptr);
    const bool from_files = !opts.cert_file.empty() || !opts.key_file.empty();
    auto key = from_files ? load_files(ctx.get(), opts) : generate(ctx.get(), opts.generated);
    if (!key)
        return key.err();
    return server_context(std::move(ctx), std::move(*key), from_files);
}

}  // namespace execbench::tls
