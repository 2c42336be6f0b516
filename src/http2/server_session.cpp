#include "execbench/http2/server_session.hpp"

#include "execbench/core/text.hpp"

#include <nghttp2/nghttp2.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <new>
#include <utility>

namespace execbench::http2 {

std::string_view to_string(goaway_reason r) noexcept
{
    switch (r) {
    case goaway_reason::shutdown: return "shutdown";
    case goaway_reason::protocol_error: return "protocol_error";
    case goaway_reason::rapid_reset: return "rapid_reset";
    case goaway_reason::control_flood: return "control_flood";
    case goaway_reason::header_flood: return "header_flood";
    case goaway_reason::internal: return "internal";
    }
    return "internal";
}

/// A stream's request as it arrives, and its answer's body as it leaves.
struct server_session::stream_state {
    http::request_storage request;
    std::string body;           // the answer's body, or the piece of a streamed body not yet framed
    std::size_t body_sent = 0;  // of `body`, framed already
    bool surfaced = false;      // its request was handed to the model
    bool answered = false;      // the whole answer is with nghttp2 (respond, or push's last piece)
    bool streaming = false;     // the body comes in pieces (begin_stream / push)
    bool deferred = false;      // nghttp2 asked for a piece and was told to wait: push resumes it
    bool too_large = false;     // the request body passed limits::max_body
};

namespace {

http::verb to_verb(std::string_view method) noexcept
{
    if (method == "GET")
        return http::verb::get;
    if (method == "HEAD")
        return http::verb::head;
    if (method == "POST")
        return http::verb::post;
    if (method == "PUT")
        return http::verb::put;
    if (method == "DELETE")
        return http::verb::del;
    return http::verb::other;
}

std::string_view view(const std::uint8_t* p, std::size_t n) noexcept
{
    return {reinterpret_cast<const char*>(p), n};
}

nghttp2_nv header(std::string_view name, std::string_view value) noexcept
{
    // Copied by nghttp2 when submitted (no NO_COPY flags): the values may live in buffers reused at once.
    return {const_cast<std::uint8_t*>(reinterpret_cast<const std::uint8_t*>(name.data())),
            const_cast<std::uint8_t*>(reinterpret_cast<const std::uint8_t*>(value.data())), name.size(), value.size(),
            NGHTTP2_NV_FLAG_NONE};
}

/// The answer's head as HTTP/2 header fields, what `http::serialize_head` writes for HTTP/1.1 (less the
/// connection-specific fields). `numbers` keeps the digits the fields point into.
struct head_fields {
    head_fields(const http::response& r)
    {
        append_number(static_cast<unsigned>(r.code), status_);
        fields_[count_++] = header(":status", status_);
        fields_[count_++] = header("server", "execbench");
        fields_[count_++] = header("date", http::date_header());
        fields_[count_++] = header("content-type", r.content_type);
        if (r.streamed) {
            fields_[count_++] = header("cache-control", "no-cache");
        } else {
            append_number(r.body.size(), length_);
            fields_[count_++] = header("content-length", length_);
        }
        if (!r.allow.empty())
            fields_[count_++] = header("allow", r.allow);
        if (r.retry_after_seconds != 0) {
            append_number(r.retry_after_seconds, retry_);
            fields_[count_++] = header("retry-after", retry_);
        }
    }
    [[nodiscard]] const nghttp2_nv* data() const noexcept { return fields_.data(); }
    [[nodiscard]] std::size_t size() const noexcept { return count_; }

private:
    std::string status_, length_, retry_;
    std::array<nghttp2_nv, 8> fields_{};
    std::size_t count_ = 0;
};

}  // namespace

/// nghttp2's callbacks, each handing on to the session its user data points at.
struct session_callbacks {
    static server_session& of(void* user_data) noexcept { return *static_cast<server_session*>(user_data); }

    static int on_begin_headers(nghttp2_session* session, const nghttp2_frame* frame, void* user_data)
    {
        auto& s = of(user_data);
        s.header_list_bytes_ = 0;
        if (frame->hd.type != NGHTTP2_HEADERS || frame->headers.cat != NGHTTP2_HCAT_REQUEST)
            return 0;
        ++s.streams_opened_;
        // nghttp2 enforces SETTINGS_MAX_CONCURRENT_STREAMS only once the client acknowledged it; until then (the
        // first round trip, which a rapid-reset attacker never waits for) the limit is kept here.
        if (s.streams_.size() >= s.limits_.max_concurrent_streams) {
            nghttp2_submit_rst_stream(session, NGHTTP2_FLAG_NONE, frame->hd.stream_id, NGHTTP2_REFUSED_STREAM);
            return 0;
        }
        auto state = std::make_unique<server_session::stream_state>();
        state->request.clear();
        s.streams_.emplace(frame->hd.stream_id, std::move(state));
        return 0;
    }

    static int on_header(nghttp2_session*, const nghttp2_frame* frame, const std::uint8_t* name, std::size_t namelen,
                         const std::uint8_t* value, std::size_t valuelen, std::uint8_t, void* user_data)
    {
        auto& s = of(user_data);
        // Counted as decoded, every block (trailers too): an HPACK bomb stops here, not after its expansion.
        s.header_list_bytes_ += namelen + valuelen + 32;
        if (s.header_list_bytes_ > s.limits_.max_header_list)
            return s.fail(goaway_reason::header_flood);
        if (frame->hd.type != NGHTTP2_HEADERS || frame->headers.cat != NGHTTP2_HCAT_REQUEST)
            return 0;
        auto* st = s.find(frame->hd.stream_id);
        if (st == nullptr)
            return 0;  // refused
        const auto n = view(name, namelen);
        const auto v = view(value, valuelen);
        auto& req = st->request;
        if (n == ":method") {
            req.method_name.assign(v);
            req.method = to_verb(v);
        } else if (n == ":path") {
            req.target.assign(v);
        } else if (n == "content-type") {
            req.content_type.assign(v);
        }
        return 0;
    }

    static int on_data_chunk(nghttp2_session*, std::uint8_t, std::int32_t stream_id, const std::uint8_t* data,
                             std::size_t len, void* user_data)
    {
        auto& s = of(user_data);
        auto* st = s.find(stream_id);
        if (st == nullptr || st->too_large)
            return 0;
        if (st->request.body.size() + len > s.limits_.max_body) {
            st->too_large = true;
            st->request.body.clear();
            return 0;
        }
        st->request.body.append(view(data, len));
        return 0;
    }

    static int on_frame_recv(nghttp2_session*, const nghttp2_frame* frame, void* user_data)
    {
        auto& s = of(user_data);
        switch (frame->hd.type) {
        case NGHTTP2_HEADERS:
        case NGHTTP2_DATA:
            if ((frame->hd.flags & NGHTTP2_FLAG_END_STREAM) == 0)
                return 0;
            if (auto* st = s.find(frame->hd.stream_id); st != nullptr && !st->surfaced) {
                st->surfaced = true;
                s.events_.push_back({event::kind::request, frame->hd.stream_id, st->too_large});
            }
            return 0;
        default: return 0;
        }
    }

    static int on_stream_close(nghttp2_session*, std::int32_t stream_id, std::uint32_t, void* user_data)
    {
        auto& s = of(user_data);
        auto it = s.streams_.find(stream_id);
        if (it == s.streams_.end())
            return 0;
        if (it->second->surfaced && !it->second->answered)
            s.events_.push_back({event::kind::cancelled, stream_id, false});
        s.streams_.erase(it);
        return 0;
    }

    static int on_frame_send(nghttp2_session*, const nghttp2_frame* frame, void* user_data)
    {
        auto& s = of(user_data);
        if (frame->hd.type == NGHTTP2_GOAWAY && !s.goaway_)
            s.goaway_ = frame->goaway.error_code == NGHTTP2_NO_ERROR ? goaway_reason::shutdown
                                                                     : goaway_reason::protocol_error;
        return 0;
    }

    static ssize_t read_body(nghttp2_session*, std::int32_t stream_id, std::uint8_t* buf, std::size_t length,
                             std::uint32_t* data_flags, nghttp2_data_source*, void* user_data)
    {
        auto& s = of(user_data);
        auto* st = s.find(stream_id);
        if (st == nullptr)
            return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
        const auto n = std::min(length, st->body.size() - st->body_sent);
        std::memcpy(buf, st->body.data() + st->body_sent, n);
        st->body_sent += n;
        if (st->body_sent < st->body.size())
            return static_cast<ssize_t>(n);
        if (!st->streaming || st->answered) {
            *data_flags |= NGHTTP2_DATA_FLAG_EOF;
            return static_cast<ssize_t>(n);
        }
        if (n != 0) {
            // The piece is framed whole: the stream may make its next one.
            st->body.clear();
            st->body_sent = 0;
            s.events_.push_back({event::kind::wants_data, stream_id, false});
            return static_cast<ssize_t>(n);
        }
        st->deferred = true;
        return NGHTTP2_ERR_DEFERRED;
    }
};

server_session::server_session(const limits& l) : limits_(l), window_start_(std::chrono::steady_clock::now())
{
    nghttp2_session_callbacks* callbacks = nullptr;
    nghttp2_option* option = nullptr;
    if (nghttp2_session_callbacks_new(&callbacks) != 0 || nghttp2_option_new(&option) != 0)
        throw std::bad_alloc();
    nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks, session_callbacks::on_begin_headers);
    nghttp2_session_callbacks_set_on_header_callback(callbacks, session_callbacks::on_header);
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, session_callbacks::on_data_chunk);
    nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, session_callbacks::on_frame_recv);
    nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, session_callbacks::on_stream_close);
    nghttp2_session_callbacks_set_on_frame_send_callback(callbacks, session_callbacks::on_frame_send);
    nghttp2_option_set_max_outbound_ack(option, limits_.max_outbound_ack);
    nghttp2_option_set_max_settings(option, limits_.max_settings);
    const int made = nghttp2_session_server_new2(&session_, callbacks, this, option);
    nghttp2_session_callbacks_del(callbacks);
    nghttp2_option_del(option);
    if (made != 0)
        throw std::bad_alloc();
    const std::array<nghttp2_settings_entry, 4> settings{{
        {NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, limits_.max_concurrent_streams},
        {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, limits_.initial_window},
        {NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE, limits_.max_header_list},
        {NGHTTP2_SETTINGS_HEADER_TABLE_SIZE, limits_.header_table_size},
    }};
    nghttp2_submit_settings(session_, NGHTTP2_FLAG_NONE, settings.data(), settings.size());
}

server_session::~server_session()
{
    nghttp2_session_del(session_);
}

server_session::stream_state* server_session::find(std::int32_t stream) noexcept
{
    auto it = streams_.find(stream);
    return it == streams_.end() ? nullptr : it->second.get();
}

int server_session::fail(goaway_reason reason) noexcept
{
    if (!failing_)
        failing_ = reason;
    return NGHTTP2_ERR_CALLBACK_FAILURE;
}

bool server_session::over_rate(unsigned& count, unsigned max)
{
    const auto now = std::chrono::steady_clock::now();
    if (now - window_start_ >= limits_.window) {
        window_start_ = now;
        resets_ = 0;
        control_frames_ = 0;
    }
    return ++count > max;
}

void server_session::terminate(goaway_reason reason, std::uint32_t error_code)
{
    if (!goaway_)
        goaway_ = reason;
    terminated_ = true;
    nghttp2_session_terminate_session(session_, error_code);
}

std::optional<goaway_reason> server_session::count_frame(std::uint8_t type, std::size_t length)
{
    switch (type) {
    case NGHTTP2_HEADERS:
        continuations_ = 0;
        header_block_bytes_ = length;
        break;
    case NGHTTP2_CONTINUATION:
        ++continuations_;
        header_block_bytes_ += length;
        break;
    case NGHTTP2_RST_STREAM:
        if (over_rate(resets_, limits_.max_resets_per_window))
            return goaway_reason::rapid_reset;
        return std::nullopt;
    case NGHTTP2_SETTINGS:
    case NGHTTP2_PING:
    case NGHTTP2_PRIORITY:
        if (over_rate(control_frames_, limits_.max_control_frames_per_window))
            return goaway_reason::control_flood;
        return std::nullopt;
    default: return std::nullopt;
    }
    if (continuations_ > limits_.max_continuations || header_block_bytes_ > limits_.max_header_block)
        return goaway_reason::header_flood;
    return std::nullopt;
}

std::optional<goaway_reason> server_session::scan(std::string_view bytes)
{
    // Frame heads are read here, before nghttp2 sees the bytes: a frame past a limit is counted whatever state
    // nghttp2 is in (it skips a failed stream's CONTINUATION frames without telling its callbacks).
    auto i = std::min(preface_left_, bytes.size());
    preface_left_ -= i;
    while (i < bytes.size()) {
        if (payload_left_ != 0) {
            const auto skip = std::min(payload_left_, bytes.size() - i);
            i += skip;
            payload_left_ -= skip;
            continue;
        }
        const auto take = std::min(frame_head_.size() - head_have_, bytes.size() - i);
        std::memcpy(frame_head_.data() + head_have_, bytes.data() + i, take);
        head_have_ += take;
        i += take;
        if (head_have_ < frame_head_.size())
            break;
        head_have_ = 0;
        payload_left_ = (std::size_t{frame_head_[0]} << 16) | (std::size_t{frame_head_[1]} << 8) | frame_head_[2];
        if (auto over = count_frame(frame_head_[3], payload_left_))
            return over;
    }
    return std::nullopt;
}

bool server_session::receive(std::string_view bytes)
{
    if (terminated_ || peer_closed_)
        return false;
    if (auto over = scan(bytes)) {
        terminate(*over, NGHTTP2_ENHANCE_YOUR_CALM);
        return false;
    }
    const auto r = nghttp2_session_mem_recv(session_, reinterpret_cast<const std::uint8_t*>(bytes.data()),
                                            bytes.size());
    if (r >= 0)
        return nghttp2_session_want_read(session_) != 0 || nghttp2_session_want_write(session_) != 0;
    if (failing_)
        terminate(*failing_, NGHTTP2_ENHANCE_YOUR_CALM);
    else if (r == NGHTTP2_ERR_FLOODED)
        terminate(goaway_reason::control_flood, NGHTTP2_ENHANCE_YOUR_CALM);
    else if (r == NGHTTP2_ERR_NOMEM)
        terminate(goaway_reason::internal, NGHTTP2_INTERNAL_ERROR);
    else
        terminate(goaway_reason::protocol_error, NGHTTP2_PROTOCOL_ERROR);  // a bad preface among others
    return false;
}

std::string_view server_session::output()
{
    if (out_sent_ == out_.size()) {
        out_.clear();
        out_sent_ = 0;
        while (out_.size() < limits_.max_output) {
            const std::uint8_t* data = nullptr;
            const auto n = nghttp2_session_mem_send(session_, &data);
            if (n <= 0) {
                if (n < 0 && !terminated_)
                    terminate(goaway_reason::internal, NGHTTP2_INTERNAL_ERROR);
                break;
            }
            out_.append(view(data, static_cast<std::size_t>(n)));
        }
    }
    return std::string_view(out_).substr(out_sent_);
}

void server_session::consumed(std::size_t n) noexcept
{
    out_sent_ = std::min(out_.size(), out_sent_ + n);
}

bool server_session::next_event(event& e, http::request_storage& into)
{
    if (events_.empty())
        return false;
    e = events_.front();
    events_.pop_front();
    if (e.what == event::kind::request) {
        if (auto* st = find(e.stream); st != nullptr) {
            std::swap(into, st->request);
            into.keep_alive = true;
            into.http10 = false;
            into.http2 = true;
        }
    }
    return true;
}

void server_session::respond(std::int32_t stream, const http::response& r, bool head_only)
{
    auto* st = find(stream);
    if (st == nullptr || st->answered)
        return;
    st->answered = true;
    const head_fields head(r);
    if (head_only || r.body.empty()) {
        nghttp2_submit_response(session_, stream, head.data(), head.size(), nullptr);
        return;
    }
    st->body.assign(r.body);
    st->body_sent = 0;
    nghttp2_data_provider provider{};
    provider.read_callback = session_callbacks::read_body;
    nghttp2_submit_response(session_, stream, head.data(), head.size(), &provider);
}

bool server_session::begin_stream(std::int32_t stream, const http::response& r)
{
    auto* st = find(stream);
    if (st == nullptr || st->answered)
        return false;
    st->streaming = true;
    st->body.clear();
    st->body_sent = 0;
    const head_fields head(r);
    nghttp2_data_provider provider{};
    provider.read_callback = session_callbacks::read_body;
    return nghttp2_submit_response(session_, stream, head.data(), head.size(), &provider) == 0;
}

void server_session::push(std::int32_t stream, std::string_view piece, bool last)
{
    auto* st = find(stream);
    if (st == nullptr || !st->streaming || st->answered)
        return;
    if (st->body_sent == st->body.size()) {
        st->body.clear();
        st->body_sent = 0;
    }
    st->body.append(piece);
    st->answered = last;
    if (std::exchange(st->deferred, false))
        nghttp2_session_resume_data(session_, stream);
}

void server_session::reset(std::int32_t stream)
{
    if (find(stream) != nullptr)
        nghttp2_submit_rst_stream(session_, NGHTTP2_FLAG_NONE, stream, NGHTTP2_INTERNAL_ERROR);
}

void server_session::shut_down()
{
    if (shutting_down_ || terminated_)
        return;
    shutting_down_ = true;
    if (!goaway_)
        goaway_ = goaway_reason::shutdown;
    nghttp2_submit_goaway(session_, NGHTTP2_FLAG_NONE, nghttp2_session_get_last_proc_stream_id(session_),
                          NGHTTP2_NO_ERROR, nullptr, 0);
}

bool server_session::finished() const noexcept
{
    if (out_sent_ != out_.size() || nghttp2_session_want_write(session_) != 0)
        return false;
    // A client that ended its sending side can send no WINDOW_UPDATE any more: an answer waiting on its window
    // never goes out, so the connection is done (and its streams are let go) rather than held until shutdown.
    return nghttp2_session_want_read(session_) == 0 || (peer_closed_ && (streams_.empty() || waits_on_peer()));
}

bool server_session::waits_on_peer() const noexcept
{
    if (streams_.empty())
        return false;
    const bool connection_shut = nghttp2_session_get_remote_window_size(session_) <= 0;
    for (const auto& [id, st] : streams_) {
        const bool has_data = st->body_sent < st->body.size();
        if (has_data && (connection_shut || nghttp2_session_get_stream_remote_window_size(session_, id) <= 0))
            return true;
    }
    return false;
}

}  // namespace execbench::http2
