#include "execbench/load/engine.hpp"

#include "execbench/load/response_parser.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <latch>
#include <memory>
#include <numeric>
#include <random>
#include <thread>

#include <sys/resource.h>

namespace execbench::load {

std::string_view to_string(error_class c) noexcept
{
    switch (c) {
    case error_class::connect_refused: return "connect_refused";
    case error_class::connect_timeout: return "connect_timeout";
    case error_class::connect_other: return "connect_other";
    case error_class::reset: return "reset";
    case error_class::request_timeout: return "request_timeout";
    case error_class::bad_response: return "bad_response";
    case error_class::http_4xx: return "http_4xx";
    case error_class::http_5xx: return "http_5xx";
    }
    return "?";
}

std::uint64_t counters::error_total() const noexcept
{
    return std::accumulate(errors.begin(), errors.end(), std::uint64_t{0});
}

void counters::add(const counters& o) noexcept
{
    ok += o.ok;
    for (std::size_t i = 0; i < errors.size(); ++i)
        errors[i] += o.errors[i];
    unsent += o.unsent;
    bytes_sent += o.bytes_sent;
    body_bytes_received += o.body_bytes_received;
}

prepared_request prepare_request(const request_spec& spec, const target& t)
{
    prepared_request p;
    p.weight = spec.weight;
    auto path = t.base_path + spec.path;
    p.label = spec.method + " " + path;
    std::string& b = p.bytes;
    b.reserve(256 + spec.body.size());
    b += spec.method + " " + path + " HTTP/1.1\r\nHost: " + t.host_header + "\r\n";
    bool has_ua = false;
    for (const auto& [k, v] : spec.headers) {
        std::string lower = k;
        std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
        // The body's length is ours to state; a scenario header must not contradict it.
        if (lower == "content-length" || lower == "host")
            continue;
        has_ua = has_ua || lower == "user-agent";
        b += k + ": " + v + "\r\n";
    }
    if (!has_ua)
        b += "User-Agent: execbench-load\r\n";
    if (!spec.body.empty() || spec.method == "POST" || spec.method == "PUT" || spec.method == "PATCH")
        b += "Content-Length: " + std::to_string(spec.body.size()) + "\r\n";
    b += "\r\n";
    b += spec.body;
    return p;
}

namespace {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using clock = std::chrono::steady_clock;
using time_point = clock::time_point;

constexpr auto tick_period = std::chrono::milliseconds{20};
constexpr auto connect_retry_backoff = std::chrono::milliseconds{10};
constexpr std::size_t read_buffer_bytes = 16 * 1024;  // a response head must fit; bodies stream through

std::int64_t micros(duration d) noexcept
{
    return std::max<std::int64_t>(1, std::chrono::duration_cast<std::chrono::microseconds>(d).count());
}

/// Picks request kinds in proportion to their weights, interleaved (smooth weighted round robin), without
/// allocating per request.
class mix_wheel {
public:
    mix_wheel(const std::vector<prepared_request>& mix, std::size_t offset)
    {
        unsigned g = 0;
        for (const auto& r : mix)
            g = std::gcd(g, r.weight);
        std::vector<long> weight, current(mix.size(), 0);
        long total = 0;
        for (const auto& r : mix) {
            weight.push_back(static_cast<long>(r.weight / g));
            total += weight.back();
        }
        for (long i = 0; i < total; ++i) {
            std::size_t best = 0;
            for (std::size_t k = 0; k < mix.size(); ++k) {
                current[k] += weight[k];
                if (current[k] > current[best])
                    best = k;
            }
            current[best] -= total;
            slots_.push_back(static_cast<std::uint32_t>(best));
        }
        cursor_ = offset % slots_.size();
    }
    std::uint32_t next() noexcept
    {
        auto s = slots_[cursor_];
        if (++cursor_ == slots_.size())
            cursor_ = 0;
        return s;
    }

private:
    std::vector<std::uint32_t> slots_;
    std::size_t cursor_ = 0;
};

class group;

/// One keep-alive connection: connect, write the prepared request, read and parse the response incrementally,
/// classify failures, reopen after them. Owned by its group for the whole trial; handlers capture `this`.
class connection {
public:
    connection(asio::io_context& ioc, group& g, std::uint32_t slot);

    [[nodiscard]] bool idle() const noexcept { return phase_ == phase::idle; }
    [[nodiscard]] std::uint32_t slot() const noexcept { return slot_; }

    void preconnect(const tcp::endpoint& ep, std::size_t& pending);
    void issue(const prepared_request& r, time_point intended);
    void think(duration d);
    void check_deadline(time_point now);
    void abort();
    void abort_thinking_only();
    void close() noexcept;

private:
    enum class phase { idle, waiting, connecting, writing, reading, thinking };

    void start();
    void do_connect();
    void on_connect(const boost::system::error_code& ec);
    void do_write();
    void on_write(const boost::system::error_code& ec, std::size_t n);
    void do_read();
    void on_read(const boost::system::error_code& ec, std::size_t n);
    void on_response();
    void on_failure(error_class c);
    void land();

    group& group_;
    std::uint32_t slot_;
    tcp::socket socket_;
    asio::steady_timer timer_;
    std::optional<response_parser> parser_;
    std::unique_ptr<char[]> buffer_;
    std::size_t begin_ = 0;
    std::size_t end_ = 0;
    phase phase_ = phase::idle;
    const prepared_request* request_ = nullptr;
    time_point intended_{};
    time_point sent_{};
    time_point deadline_{};
    time_point retry_after_{};
    bool timed_out_ = false;
    bool aborting_ = false;
    bool sent_once_ = false;
};

/// A load group on one thread: its share of the connections and the shape that decides when each sends.
class group {
public:
    group(asio::io_context& ioc, const group_plan& plan, const trial_plan& trial, unsigned thread_index,
          std::atomic<std::uint64_t>* first_sends)
        : ioc_(ioc),
          plan_(plan),
          trial_(trial),
          thread_index_(thread_index),
          threads_(trial.threads),
          first_sends_(first_sends),
          wheel_(plan.mix, thread_index * 7919),
          rng_(trial.seed * 1'000'003 + thread_index),
          schedule_timer_(ioc)
    {
        const auto& l = plan.load;
        std::uint64_t total_conns = l.kind == shape::burst ? (l.connections ? l.connections : l.requests)
                                                           : l.connections;
        // Connection (or user) i belongs to thread i % threads.
        std::vector<std::uint64_t> mine;
        for (std::uint64_t i = thread_index; i < total_conns; i += threads_)
            mine.push_back(i);
        for (std::uint32_t s = 0; s < mine.size(); ++s)
            conns_.push_back(std::make_unique<connection>(ioc, *this, s));
        global_index_ = mine;
        active_.assign(mine.size(), false);
        if (l.kind == shape::burst) {
            auto base = l.requests / total_conns, extra = l.requests % total_conns;
            for (auto i : mine)
                remaining_.push_back(base + (i < extra ? 1 : 0));
        }
        if (l.kind == shape::open && total_conns > 0) {
            rate_ = l.rate * double(mine.size()) / double(total_conns);
            cap_ = static_cast<std::uint64_t>(std::floor(rate_ * std::chrono::duration<double>(l.length).count()));
        }
        m_.latency.reset();
        m_.service.reset();
    }

    [[nodiscard]] bool started() const noexcept { return started_; }
    [[nodiscard]] const trial_plan& trial() const noexcept { return trial_; }
    [[nodiscard]] const group_measurement& measurement() const noexcept { return m_; }
    [[nodiscard]] std::vector<std::unique_ptr<connection>>& connections() noexcept { return conns_; }

    void count_first_send() noexcept
    {
        if (first_sends_)
            first_sends_->fetch_add(1, std::memory_order_relaxed);
    }
    void count_sent(std::size_t n) noexcept { m_.count.bytes_sent += n; }
    void count_body(std::uint64_t n) noexcept { m_.count.body_bytes_received += n; }

    void start(time_point t0)
    {
        if (started_ || ending_)
            return;
        started_ = true;
        t0_ = t0;
        last_completion_ = t0;
        end_ = t0 + plan_.load.length;
        switch (plan_.load.kind) {
        case shape::burst:
            for (auto& c : conns_)
                next_burst(*c);
            break;
        case shape::closed:
            for (auto& c : conns_)
                c->issue(pick(), t0);
            break;
        case shape::open:
            for (auto& c : conns_)
                idle_.push_back(c.get());
            dispatch(clock::now());
            break;
        case shape::ramp:
            control(clock::now());
            break;
        }
    }

    /// Called by a connection when its request ended (or was aborted); decides what it does next.
    void on_done(connection& c, time_point now)
    {
        if (ending_) {
            if (plan_.load.kind == shape::ramp)
                c.close();
            return;
        }
        switch (plan_.load.kind) {
        case shape::burst:
            next_burst(c);
            break;
        case shape::closed:
            if (now >= end_)
                return;
            if (plan_.load.think_max.count() > 0)
                c.think(think_time());
            else
                c.issue(pick(), now);
            break;
        case shape::open:
            idle_.push_back(&c);
            dispatch(now);
            break;
        case shape::ramp:
            if (!active_[c.slot()] || now >= end_) {
                active_[c.slot()] = false;
                c.close();
            } else if (plan_.load.think_max.count() > 0) {
                c.think(think_time());
            } else {
                c.issue(pick(), now);
            }
            break;
        }
    }

    /// Called when a think pause is over.
    void on_thought(connection& c, time_point now)
    {
        if (ending_ || now >= end_ || (plan_.load.kind == shape::ramp && !active_[c.slot()])) {
            if (plan_.load.kind == shape::ramp) {
                active_[c.slot()] = false;
                c.close();
            }
            return;
        }
        c.issue(pick(), now);
    }

    void record_ok(time_point now, time_point intended, time_point sent)
    {
        ++m_.count.ok;
        auto lat = micros(now - intended);
        m_.latency.record(lat);
        m_.service.record(micros(now - sent));
        auto& sec = second(now);
        ++sec.ok;
        sec.latency.record(lat);
        last_completion_ = now;
    }

    void record_error(error_class c, time_point now)
    {
        ++m_.count.errors[static_cast<std::size_t>(c)];
        ++second(now).errors;
        last_completion_ = now;
    }

    /// Periodic work: deadlines, the end of the duration, ramp control.
    void tick(time_point now)
    {
        for (auto& c : conns_)
            c->check_deadline(now);
        if (!started_ || ending_)
            return;
        if (plan_.load.kind == shape::ramp)
            control(now);
        if (plan_.load.kind != shape::burst && now >= end_)
            finish_issuing();
    }

    /// Stops issuing; requests in flight complete (bounded by their timeout).
    void finish_issuing()
    {
        if (ending_)
            return;
        ending_ = true;
        schedule_timer_.cancel();
        if (plan_.load.kind == shape::open && started_) {
            m_.count.unsent += cap_ - std::min(cap_, dispatched_);
            dispatched_ = cap_;
        }
        for (auto& c : conns_)
            if (plan_.load.kind == shape::ramp || plan_.load.kind == shape::closed)
                c->abort_thinking_only();
    }

    /// Stops at once: in-flight requests are dropped without being counted.
    void abort()
    {
        ending_ = true;
        schedule_timer_.cancel();
        for (auto& c : conns_)
            c->abort();
    }

    [[nodiscard]] bool finished() const noexcept
    {
        if (!started_)
            return ending_;
        bool issuing_done = ending_;
        if (plan_.load.kind == shape::burst)
            issuing_done = issuing_done || std::all_of(remaining_.begin(), remaining_.end(), [](auto r) { return r == 0; });
        if (!issuing_done)
            return false;
        return std::all_of(conns_.begin(), conns_.end(), [](const auto& c) { return c->idle(); });
    }

    void close_all() noexcept
    {
        for (auto& c : conns_)
            c->close();
    }

    group_measurement take_measurement()
    {
        m_.wall = started_ ? last_completion_ - t0_ : duration{};
        return std::move(m_);
    }

    [[nodiscard]] std::uint64_t ok_count() const noexcept { return m_.count.ok; }
    [[nodiscard]] std::uint64_t error_count() const noexcept { return m_.count.error_total(); }

private:
    const prepared_request& pick() noexcept { return plan_.mix[wheel_.next()]; }

    duration think_time()
    {
        auto lo = plan_.load.think_min.count(), hi = plan_.load.think_max.count();
        if (hi <= lo)
            return duration{lo};
        return duration{std::uniform_int_distribution<std::int64_t>(lo, hi)(rng_)};
    }

    timeline_second& second(time_point now)
    {
        auto s = static_cast<std::size_t>(std::max<std::int64_t>(
            0, std::chrono::duration_cast<std::chrono::seconds>(now - t0_).count()));
        if (s >= m_.timeline.size())
            m_.timeline.resize(s + 1);
        return m_.timeline[s];
    }

    void next_burst(connection& c)
    {
        auto& left = remaining_[c.slot()];
        if (left == 0)
            return;
        --left;
        c.issue(pick(), clock::now());
    }

    time_point intended(std::uint64_t index) const noexcept
    {
        return t0_ + std::chrono::duration_cast<duration>(std::chrono::duration<double>(double(index) / rate_));
    }

    /// Open shape: sends every request that is due on a free connection, then sleeps until the next is due.
    void dispatch(time_point now)
    {
        if (ending_)
            return;
        auto elapsed = std::chrono::duration<double>(now - t0_).count();
        auto due = std::min<std::uint64_t>(cap_, static_cast<std::uint64_t>(std::floor(elapsed * rate_)) + 1);
        while (dispatched_ < due && !idle_.empty()) {
            auto* c = idle_.back();
            idle_.pop_back();
            c->issue(pick(), intended(dispatched_));
            ++dispatched_;
        }
        if (dispatched_ >= cap_) {
            if (now >= end_)
                finish_issuing();
            else
                arm(end_);
            return;
        }
        if (dispatched_ < due)
            return;  // backlog: the next completion sends it
        arm(std::min(intended(dispatched_), end_));
    }

    void arm(time_point when)
    {
        if (armed_ && armed_at_ <= when)
            return;
        armed_ = true;
        armed_at_ = when;
        schedule_timer_.expires_at(when);
        schedule_timer_.async_wait([this](const boost::system::error_code& ec) {
            armed_ = false;
            if (ec || ending_)
                return;
            auto now = clock::now();
            m_.schedule_lag.record(std::max<std::int64_t>(1, micros(now - armed_at_)));
            if (now >= end_ && dispatched_ >= cap_) {
                finish_issuing();
                return;
            }
            if (now >= end_) {
                finish_issuing();
                return;
            }
            dispatch(now);
        });
    }

    /// Ramp shape: activates or retires this thread's users to follow the target.
    void control(time_point now)
    {
        if (now >= end_) {
            finish_issuing();
            return;
        }
        auto target = static_cast<std::uint64_t>(std::llround(ramp_users_at(plan_.load.stages, now - t0_)));
        for (std::size_t s = 0; s < conns_.size(); ++s) {
            bool want = global_index_[s] < target;
            if (want && !active_[s] && conns_[s]->idle()) {
                active_[s] = true;
                conns_[s]->issue(pick(), now);
            } else if (!want && active_[s]) {
                active_[s] = false;  // leaves after its current request
                if (conns_[s]->idle())
                    conns_[s]->close();
            }
        }
    }

    asio::io_context& ioc_;
    const group_plan& plan_;
    const trial_plan& trial_;
    unsigned thread_index_;
    unsigned threads_;
    std::atomic<std::uint64_t>* first_sends_;
    mix_wheel wheel_;
    std::mt19937_64 rng_;
    asio::steady_timer schedule_timer_;
    std::vector<std::unique_ptr<connection>> conns_;
    std::vector<std::uint64_t> global_index_;
    std::vector<bool> active_;
    std::vector<std::uint64_t> remaining_;
    std::vector<connection*> idle_;
    double rate_ = 0;
    std::uint64_t cap_ = 0;
    std::uint64_t dispatched_ = 0;
    bool armed_ = false;
    time_point armed_at_{};
    time_point t0_{};
    time_point end_{};
    time_point last_completion_{};
    bool started_ = false;
    bool ending_ = false;
    group_measurement m_;

    friend class connection;
};


connection::connection(asio::io_context& ioc, group& g, std::uint32_t slot)
    : group_(g), slot_(slot), socket_(ioc), timer_(ioc)
{
}

void connection::preconnect(const tcp::endpoint& ep, std::size_t& pending)
{
    ++pending;
    phase_ = phase::connecting;
    socket_.async_connect(ep, [this, &pending](const boost::system::error_code& ec) {
        phase_ = phase::idle;
        --pending;
        boost::system::error_code ignored;
        if (ec)
            socket_.close(ignored);  // the first request connects again and counts a failure then
        else
            socket_.set_option(tcp::no_delay(true), ignored);
    });
}

void connection::issue(const prepared_request& r, time_point intended)
{
    request_ = &r;
    intended_ = intended;
    timed_out_ = false;
    aborting_ = false;
    if (clock::now() < retry_after_) {
        // A failed connect is retried after a short pause so a dead server does not spin this thread.
        phase_ = phase::waiting;
        timer_.expires_at(retry_after_);
        timer_.async_wait([this](const boost::system::error_code& ec) {
            if (ec || aborting_)
                return land();
            start();
        });
        return;
    }
    start();
}

void connection::start()
{
    if (socket_.is_open())
        do_write();
    else
        do_connect();
}

void connection::think(duration d)
{
    phase_ = phase::thinking;
    timer_.expires_after(d);
    timer_.async_wait([this](const boost::system::error_code& ec) {
        if (ec || aborting_)
            return land();
        phase_ = phase::idle;
        group_.on_thought(*this, clock::now());
    });
}

void connection::do_connect()
{
    phase_ = phase::connecting;
    deadline_ = clock::now() + group_.trial().connect_timeout;
    socket_.async_connect(group_.trial().endpoints.front(),
                          [this](const boost::system::error_code& ec) { on_connect(ec); });
}

void connection::on_connect(const boost::system::error_code& ec)
{
    if (aborting_)
        return land();
    if (ec) {
        retry_after_ = clock::now() + connect_retry_backoff;
        if (timed_out_)
            return on_failure(error_class::connect_timeout);
        if (ec == asio::error::connection_refused)
            return on_failure(error_class::connect_refused);
        if (ec == asio::error::timed_out)
            return on_failure(error_class::connect_timeout);
        return on_failure(error_class::connect_other);
    }
    boost::system::error_code ignored;
    socket_.set_option(tcp::no_delay(true), ignored);
    do_write();
}

void connection::do_write()
{
    phase_ = phase::writing;
    sent_ = clock::now();
    deadline_ = sent_ + group_.trial().timeout;
    if (!sent_once_) {
        sent_once_ = true;
        group_.count_first_send();
    }
    asio::async_write(socket_, asio::buffer(request_->bytes),
                      [this](const boost::system::error_code& ec, std::size_t n) { on_write(ec, n); });
}

void connection::on_write(const boost::system::error_code& ec, std::size_t n)
{
    if (aborting_)
        return land();
    group_.count_sent(n);
    if (ec)
        return on_failure(timed_out_ ? error_class::request_timeout : error_class::reset);
    phase_ = phase::reading;
    parser_.emplace();
    begin_ = end_ = 0;  // bytes the server sent unasked are not part of this response
    if (!buffer_)
        buffer_.reset(new char[read_buffer_bytes]);
    do_read();
}

void connection::do_read()
{
    socket_.async_read_some(asio::buffer(buffer_.get() + end_, read_buffer_bytes - end_),
                            [this](const boost::system::error_code& ec, std::size_t n) { on_read(ec, n); });
}

void connection::on_read(const boost::system::error_code& ec, std::size_t n)
{
    if (aborting_)
        return land();
    if (ec) {
        if (timed_out_)
            return on_failure(error_class::request_timeout);
        if (ec == asio::error::eof && parser_->is_header_done() && parser_->need_eof()) {
            // A body delimited by the end of the connection.
            boost::system::error_code pec;
            parser_->put_eof(pec);
            if (!pec && parser_->is_done())
                return on_response();
            return on_failure(error_class::bad_response);
        }
        return on_failure(error_class::reset);
    }
    end_ += n;
    while (begin_ < end_) {
        boost::system::error_code pec;
        auto used = parser_->put(asio::buffer(buffer_.get() + begin_, end_ - begin_), pec);
        begin_ += used;
        if (pec == boost::beast::http::error::need_more)
            break;
        if (pec)
            return on_failure(error_class::bad_response);
        if (parser_->is_done())
            break;
    }
    if (begin_ == end_)
        begin_ = end_ = 0;
    if (parser_->is_done())
        return on_response();
    if (begin_ > 0) {
        std::memmove(buffer_.get(), buffer_.get() + begin_, end_ - begin_);
        end_ -= begin_;
        begin_ = 0;
    }
    if (end_ == read_buffer_bytes)
        return on_failure(error_class::bad_response);  // a response head larger than the buffer
    do_read();
}

void connection::on_response()
{
    auto now = clock::now();
    int status = parser_->status();
    group_.count_body(parser_->body_bytes());
    if (!parser_->keep_alive())
        close();
    phase_ = phase::idle;
    if (status >= 500)
        group_.record_error(error_class::http_5xx, now);
    else if (status >= 400)
        group_.record_error(error_class::http_4xx, now);
    else
        group_.record_ok(now, intended_, sent_);
    group_.on_done(*this, now);
}

void connection::on_failure(error_class c)
{
    close();
    phase_ = phase::idle;
    auto now = clock::now();
    group_.record_error(c, now);
    group_.on_done(*this, now);
}

void connection::land()
{
    close();
    phase_ = phase::idle;
}

void connection::check_deadline(time_point now)
{
    bool io = phase_ == phase::connecting || phase_ == phase::writing || phase_ == phase::reading;
    if (io && !timed_out_ && now >= deadline_) {
        timed_out_ = true;
        boost::system::error_code ignored;
        socket_.close(ignored);  // the pending operation completes with operation_aborted
    }
}

void connection::abort()
{
    aborting_ = true;
    switch (phase_) {
    case phase::idle: close(); break;
    case phase::waiting:
    case phase::thinking: timer_.cancel(); break;
    default: {
        boost::system::error_code ignored;
        socket_.close(ignored);
    }
    }
}

void connection::abort_thinking_only()
{
    if (phase_ == phase::thinking || phase_ == phase::waiting) {
        aborting_ = true;
        timer_.cancel();
    }
}

void connection::close() noexcept
{
    boost::system::error_code ignored;
    if (socket_.is_open())
        socket_.close(ignored);
    begin_ = end_ = 0;
}

/// What the threads of one trial share: start signals and a few counters, nothing on the request path.
struct trial_shared {
    explicit trial_shared(unsigned threads) : ready(threads) {}
    std::latch ready;
    std::latch go{1};
    std::atomic<std::uint64_t> background_first_sends{0};
    std::atomic<unsigned> foreground_done{0};
    std::atomic<unsigned> background_done{0};
};

/// One thread of a trial: its io_context, its share of every group's connections, and a periodic tick.
class worker {
public:
    worker(const trial_plan& plan, unsigned index, trial_shared& shared)
        : plan_(plan), shared_(shared), ioc_(1), tick_(ioc_), guard_(asio::make_work_guard(ioc_))
    {
        foreground_ = std::make_unique<group>(ioc_, plan.foreground, plan, index, nullptr);
        if (plan.background)
            background_ = std::make_unique<group>(ioc_, *plan.background, plan, index,
                                                  &shared.background_first_sends);
    }

    asio::io_context& ioc() noexcept { return ioc_; }
    group& foreground() noexcept { return *foreground_; }
    group* background() noexcept { return background_.get(); }

    /// Opens the connections of every shape except ramp (whose users connect when they arrive), so a trial
    /// measures requests rather than the connection storm; bounded by the connect timeout.
    void preconnect()
    {
        std::size_t pending = 0;
        for (auto* g : {foreground_.get(), background_.get()}) {
            if (!g || g == nullptr)
                continue;
            if ((g == foreground_.get() ? plan_.foreground : *plan_.background).load.kind == shape::ramp)
                continue;
            for (auto& c : g->connections())
                c->preconnect(plan_.endpoints.front(), pending);
        }
        if (pending == 0)
            return;
        asio::steady_timer limit(ioc_);
        bool expired = false;
        limit.expires_after(plan_.connect_timeout);
        limit.async_wait([&](const boost::system::error_code& ec) {
            if (ec)
                return;
            expired = true;
            for (auto* g : {foreground_.get(), background_.get()})
                if (g)
                    g->close_all();
        });
        while (pending > 0 && ioc_.run_one()) {
        }
        if (!expired) {
            limit.cancel();
            ioc_.run_one();
        }
    }

    void run()
    {
        schedule_tick();
        ioc_.run();
    }

private:
    void schedule_tick()
    {
        tick_.expires_after(tick_period);
        tick_.async_wait([this](const boost::system::error_code& ec) {
            if (!ec)
                on_tick();
        });
    }

    void on_tick()
    {
        auto now = clock::now();
        if (plan_.stop && plan_.stop->load(std::memory_order_relaxed) && !stopped_) {
            stopped_ = true;
            foreground_->abort();
            if (background_)
                background_->abort();
        }
        foreground_->tick(now);
        if (background_)
            background_->tick(now);
        publish();
        bool fg_done = foreground_->finished();
        bool bg_done = !background_ || background_->finished();
        if (fg_done && !fg_signalled_) {
            fg_signalled_ = true;
            shared_.foreground_done.fetch_add(1);
        }
        if (background_ && bg_done && !bg_signalled_) {
            bg_signalled_ = true;
            shared_.background_done.fetch_add(1);
        }
        if (fg_done && bg_done) {
            foreground_->close_all();
            if (background_)
                background_->close_all();
            guard_.reset();
            return;
        }
        schedule_tick();
    }

    void publish()
    {
        if (!plan_.live)
            return;
        auto ok = foreground_->ok_count(), err = foreground_->error_count();
        plan_.live->ok.fetch_add(ok - published_ok_, std::memory_order_relaxed);
        plan_.live->errors.fetch_add(err - published_errors_, std::memory_order_relaxed);
        published_ok_ = ok;
        published_errors_ = err;
    }

    const trial_plan& plan_;
    trial_shared& shared_;
    asio::io_context ioc_;
    asio::steady_timer tick_;
    asio::executor_work_guard<asio::io_context::executor_type> guard_;
    std::unique_ptr<group> foreground_;
    std::unique_ptr<group> background_;
    bool stopped_ = false;
    bool fg_signalled_ = false;
    bool bg_signalled_ = false;
    std::uint64_t published_ok_ = 0;
    std::uint64_t published_errors_ = 0;
};

double cpu_seconds_of_self()
{
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    auto tv = [](const timeval& t) { return double(t.tv_sec) + double(t.tv_usec) / 1e6; };
    return tv(ru.ru_utime) + tv(ru.ru_stime);
}

void merge_into(group_measurement& into, group_measurement&& from)
{
    into.count.add(from.count);
    (void)into.latency.merge(from.latency);
    (void)into.service.merge(from.service);
    (void)into.schedule_lag.merge(from.schedule_lag);
    if (from.timeline.size() > into.timeline.size())
        into.timeline.resize(from.timeline.size());
    for (std::size_t i = 0; i < from.timeline.size(); ++i) {
        into.timeline[i].ok += from.timeline[i].ok;
        into.timeline[i].errors += from.timeline[i].errors;
        (void)into.timeline[i].latency.merge(from.timeline[i].latency);
    }
    into.wall = std::max(into.wall, from.wall);
}

std::uint64_t total_connections(const load_spec& l)
{
    return l.kind == shape::burst ? (l.connections ? l.connections : l.requests) : l.connections;
}

bool stop_requested(const trial_plan& plan)
{
    return plan.stop && plan.stop->load(std::memory_order_relaxed);
}

}  // namespace

trial_measurement run_trial(const trial_plan& plan)
{
    trial_measurement out;
    auto started = clock::now();
    auto cpu_before = cpu_seconds_of_self();
    unsigned threads = std::max(1u, plan.threads);
    trial_plan p = plan;
    p.threads = threads;

    trial_shared shared(threads);
    std::vector<std::unique_ptr<worker>> workers;
    for (unsigned i = 0; i < threads; ++i)
        workers.push_back(std::make_unique<worker>(p, i, shared));
    std::vector<std::thread> pool;
    for (unsigned i = 0; i < threads; ++i) {
        pool.emplace_back([&, i] {
            workers[i]->preconnect();
            shared.ready.count_down();
            shared.go.wait();
            workers[i]->run();
        });
    }
    shared.ready.wait();

    auto t0 = clock::now();
    if (p.background) {
        for (auto& w : workers)
            asio::post(w->ioc(), [g = w->background(), t0] { g->start(t0); });
        shared.go.count_down();
        // The foreground starts once every background connection has its first request in flight.
        auto want = total_connections(p.background->load);
        auto limit = t0 + p.connect_timeout + p.timeout;
        while (shared.background_first_sends.load() < want && shared.background_done.load() < threads &&
               !stop_requested(p) && clock::now() < limit)
            std::this_thread::sleep_for(std::chrono::microseconds{200});
        if (p.background_delay.count() > 0 && !stop_requested(p))
            std::this_thread::sleep_for(p.background_delay);
        auto t_fg = clock::now();
        for (auto& w : workers)
            asio::post(w->ioc(), [g = &w->foreground(), t_fg] { g->start(t_fg); });
    } else {
        for (auto& w : workers)
            asio::post(w->ioc(), [g = &w->foreground(), t0] { g->start(t0); });
        shared.go.count_down();
    }
    if (p.background) {
        while (shared.foreground_done.load() < threads)
            std::this_thread::sleep_for(std::chrono::milliseconds{2});
        for (auto& w : workers)
            asio::post(w->ioc(), [g = w->background()] { g->finish_issuing(); });
    }
    for (auto& t : pool)
        t.join();

    for (auto& w : workers) {
        merge_into(out.foreground, w->foreground().take_measurement());
        if (auto* bg = w->background()) {
            if (!out.background)
                out.background.emplace();
            merge_into(*out.background, bg->take_measurement());
        }
    }
    out.stopped = stop_requested(p);
    out.loadgen_cpu_seconds = cpu_seconds_of_self() - cpu_before;
    out.elapsed = clock::now() - started;
    return out;
}

}  // namespace execbench::load
