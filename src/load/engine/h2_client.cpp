#include "h2_client.hpp"

#include <algorithm>
#include <cstring>

namespace execbench::load::detail {

namespace {

constexpr std::size_t read_bytes = 16 * 1024;
// One write gathers up to this much; a session with more (a large upload) writes the rest next.
constexpr std::size_t write_bytes = 64 * 1024;
// The receive windows, connection and stream, as h2load's defaults (-w 30 -W 30): the server's answers are never
// held back by this generator's flow control.
constexpr std::int32_t window = (1 << 30) - 1;

/// The slot a stream's user data carries: slot + 1, so that no slot is a null pointer.
void* user_data_of(std::uint32_t slot) noexcept
{
    return reinterpret_cast<void*>(static_cast<std::uintptr_t>(slot) + 1);
}

std::uint32_t slot_of(void* data) noexcept
{
    return static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(data) - 1);
}

nghttp2_nv header(const std::string& name, const std::string& value) noexcept
{
    // The request outlives the trial, so nghttp2 need not copy the strings (it copies the list).
    return {reinterpret_cast<std::uint8_t*>(const_cast<char*>(name.data())),
            reinterpret_cast<std::uint8_t*>(const_cast<char*>(value.data())), name.size(), value.size(),
            NGHTTP2_NV_FLAG_NO_COPY_NAME | NGHTTP2_NV_FLAG_NO_COPY_VALUE};
}

const std::string pseudo_method = ":method", pseudo_scheme = ":scheme", pseudo_authority = ":authority",
                  pseudo_path = ":path";

}  // namespace

/// nghttp2's callbacks, each a static function with the client as its user data.
struct h2_client::callbacks {
    static h2_client& self(void* user) noexcept { return *static_cast<h2_client*>(user); }

    static stream_state* stream(nghttp2_session* session, std::int32_t id, void* user) noexcept
    {
        auto* data = nghttp2_session_get_stream_user_data(session, id);
        if (!data)
            return nullptr;
        auto slot = slot_of(data);
        auto& c = self(user);
        return slot < c.streams_.size() ? &c.streams_[slot] : nullptr;
    }

    static int on_header(nghttp2_session* session, const nghttp2_frame* frame, const std::uint8_t* name,
                         std::size_t namelen, const std::uint8_t* value, std::size_t valuelen, std::uint8_t,
                         void* user)
    {
        if (frame->hd.type != NGHTTP2_HEADERS)
            return 0;
        auto* s = stream(session, frame->hd.stream_id, user);
        // nghttp2 checks the response's headers (HTTP messaging): a :status is three digits, and only a response's
        // head has one; after a 1xx head the final one comes as another HEADERS frame and replaces it.
        if (s && namelen == 7 && std::memcmp(name, ":status", 7) == 0 && valuelen == 3)
            s->status = (value[0] - '0') * 100 + (value[1] - '0') * 10 + (value[2] - '0');
        return 0;
    }

    static int on_data_chunk(nghttp2_session* session, std::uint8_t, std::int32_t id, const std::uint8_t*,
                             std::size_t len, void* user)
    {
        if (auto* s = stream(session, id, user))
            s->body_bytes += len;
        return 0;
    }

    static int on_frame_recv(nghttp2_session*, const nghttp2_frame* frame, void* user)
    {
        if (frame->hd.type == NGHTTP2_GOAWAY) {
            auto& c = self(user);
            c.goaway_ = true;
            c.goaway_error_ = frame->goaway.error_code;
            c.goaway_last_stream_ = frame->goaway.last_stream_id;
        }
        return 0;
    }

    static int on_stream_close(nghttp2_session* session, std::int32_t id, std::uint32_t error_code, void* user)
    {
        auto* data = nghttp2_session_get_stream_user_data(session, id);
        if (!data)
            return 0;
        auto& c = self(user);
        auto slot = slot_of(data);
        auto& s = c.streams_[slot];
        if (c.goaway_ && id > c.goaway_last_stream_)
            return 0;  // never begun: the connection sends it again
        c.ended_.push_back({slot, error_code != NGHTTP2_NO_ERROR || s.status == 0, s.status, s.body_bytes});
        return 0;
    }

    static ssize_t read_body(nghttp2_session* session, std::int32_t id, std::uint8_t* buf, std::size_t length,
                             std::uint32_t* flags, nghttp2_data_source*, void* user)
    {
        auto* s = stream(session, id, user);
        if (!s || !s->body) {
            *flags |= NGHTTP2_DATA_FLAG_EOF;
            return 0;
        }
        auto n = std::min(length, s->body->size() - s->uploaded);
        std::memcpy(buf, s->body->data() + s->uploaded, n);
        s->uploaded += n;
        if (s->uploaded == s->body->size())
            *flags |= NGHTTP2_DATA_FLAG_EOF;
        return static_cast<ssize_t>(n);
    }

    /// One set for every session (nghttp2 copies them into each).
    static const nghttp2_session_callbacks* get()
    {
        static const auto* made = [] {
            nghttp2_session_callbacks* cb = nullptr;
            nghttp2_session_callbacks_new(&cb);
            nghttp2_session_callbacks_set_on_header_callback(cb, on_header);
            nghttp2_session_callbacks_set_on_data_chunk_recv_callback(cb, on_data_chunk);
            nghttp2_session_callbacks_set_on_frame_recv_callback(cb, on_frame_recv);
            nghttp2_session_callbacks_set_on_stream_close_callback(cb, on_stream_close);
            return cb;
        }();
        return made;
    }
};

h2_client::h2_client(std::uint32_t streams) : streams_(std::max<std::uint32_t>(1, streams))
{
    ended_.reserve(streams_.size());
}

h2_client::~h2_client()
{
    end();
}

bool h2_client::begin()
{
    end();
    if (!in_)
        in_.reset(new char[read_bytes]);
    const auto* cb = callbacks::get();
    if (!cb || nghttp2_session_client_new(&session_, cb, this) != 0) {
        session_ = nullptr;
        return false;
    }
    nghttp2_settings_entry settings[] = {{NGHTTP2_SETTINGS_ENABLE_PUSH, 0},
                                         {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, static_cast<std::uint32_t>(window)}};
    if (nghttp2_submit_settings(session_, NGHTTP2_FLAG_NONE, settings, std::size(settings)) != 0 ||
        nghttp2_session_set_local_window_size(session_, NGHTTP2_FLAG_NONE, 0, window) != 0) {
        end();
        return false;
    }
    return true;
}

void h2_client::end() noexcept
{
    if (session_)
        nghttp2_session_del(session_);  // calls no callback
    session_ = nullptr;
    ended_.clear();
    goaway_ = false;
    goaway_error_ = 0;
    goaway_last_stream_ = 0;
}

bool h2_client::accepting() const noexcept
{
    return session_ && !goaway_ && nghttp2_session_check_request_allowed(session_) != 0;
}

bool h2_client::submit(std::uint32_t slot, const prepared_request& r)
{
    const auto& q = r.h2;
    nv_.clear();
    nv_.push_back(header(pseudo_method, q.method));
    nv_.push_back(header(pseudo_scheme, q.scheme));
    nv_.push_back(header(pseudo_authority, q.authority));
    nv_.push_back(header(pseudo_path, q.path));
    for (const auto& [name, value] : q.headers)
        nv_.push_back(header(name, value));
    auto& s = streams_[slot];
    s = {q.body.empty() ? nullptr : &q.body, 0, 0, 0};
    nghttp2_data_provider body{};
    body.read_callback = callbacks::read_body;
    auto id = nghttp2_submit_request(session_, nullptr, nv_.data(), nv_.size(), s.body ? &body : nullptr,
                                     user_data_of(slot));
    return id > 0;
}

boost::asio::mutable_buffer h2_client::space() noexcept
{
    return boost::asio::buffer(in_.get(), read_bytes);
}

bool h2_client::received(std::size_t n)
{
    auto used = nghttp2_session_mem_recv(session_, reinterpret_cast<const std::uint8_t*>(in_.get()), n);
    return used >= 0 && static_cast<std::size_t>(used) == n;
}

boost::asio::const_buffer h2_client::output(bool& ok)
{
    ok = true;
    out_.clear();
    while (out_.size() < write_bytes) {
        const std::uint8_t* data = nullptr;
        auto n = nghttp2_session_mem_send(session_, &data);
        if (n < 0) {
            ok = false;
            break;
        }
        if (n == 0)
            break;
        out_.append(reinterpret_cast<const char*>(data), static_cast<std::size_t>(n));
    }
    return boost::asio::buffer(out_);
}

bool h2_client::wants_read() const noexcept
{
    return session_ && nghttp2_session_want_read(session_) != 0;
}

bool h2_client::finished() const noexcept
{
    return !session_ || (nghttp2_session_want_read(session_) == 0 && nghttp2_session_want_write(session_) == 0);
}

}  // namespace execbench::load::detail
