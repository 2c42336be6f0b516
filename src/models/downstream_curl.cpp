#include "downstream_curl.hpp"

#include <boost/asio/bind_executor.hpp>
#include <boost/asio/error.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/use_future.hpp>

#include <algorithm>
#include <cerrno>
#include <mutex>
#include <stdexcept>

#include <sys/socket.h>
#include <unistd.h>

namespace execbench::models {

namespace {

using tcp = boost::asio::ip::tcp;

/// Easy handles kept idle per side: enough for every connection a busy client holds, little memory.
constexpr std::size_t idle_easy_limit = 4096;

void init_curl_once()
{
    static std::once_flag once;
    std::call_once(once, [] {
        if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
            throw std::runtime_error("--downstream-client curl: libcurl cannot be initialised");
    });
}

/// What a finished transfer's code means, as classify_downstream_error does for Beast's errors.
http::failure classify(CURLcode code) noexcept
{
    switch (code) {
    case CURLE_OPERATION_TIMEDOUT: return http::failure::downstream_timeout;
    case CURLE_WEIRD_SERVER_REPLY:
    case CURLE_UNSUPPORTED_PROTOCOL:  // an answer that is no HTTP/1.x (curl refuses HTTP/0.9)
    case CURLE_BAD_CONTENT_ENCODING:
    case CURLE_WRITE_ERROR:  // the body over the limit (the write callback refused it)
    case CURLE_FILESIZE_EXCEEDED: return http::failure::downstream_bad_answer;
    default: return http::failure::downstream_unavailable;
    }
}

}  // namespace

struct curl_client::easy {
    CURL* handle = nullptr;
    char error[CURL_ERROR_SIZE] = {};
    std::size_t body_bytes = 0;
    const std::atomic<bool>* cancelled = nullptr;

    easy() : handle(curl_easy_init())
    {
        if (handle == nullptr)
            throw std::bad_alloc();
    }
    ~easy() { curl_easy_cleanup(handle); }
    easy(const easy&) = delete;
    easy& operator=(const easy&) = delete;

    // The body is not kept (only the status is judged), but bounded as the Beast clients bound it.
    static std::size_t on_body(char*, std::size_t size, std::size_t n, void* self)
    {
        auto& e = *static_cast<easy*>(self);
        e.body_bytes += size * n;
        return e.body_bytes > http::limits::max_downstream_body_bytes ? 0 : size * n;
    }
    // Lets a blocking call end when the client is cancelled (a shutdown deadline); curl calls it at least once a
    // second.
    static int on_progress(void* self, curl_off_t, curl_off_t, curl_off_t, curl_off_t)
    {
        return static_cast<easy*>(self)->cancelled->load(std::memory_order_relaxed) ? 1 : 0;
    }
};

struct curl_client::transfer {
    // Constructed with its handler, never assigned one: Boost 1.81's any_completion_handler move-assignment wraps
    // the handler in another instead of moving it.
    explicit transfer(handler_type h) : handler(std::move(h)) {}
    std::unique_ptr<easy> e;
    handler_type handler;
    bool permitted = false;
};

struct curl_client::watched_socket {
    explicit watched_socket(boost::asio::io_context::executor_type executor) : socket(std::move(executor)) {}
    socket_type socket;
    int wanted = 0;  // CURL_POLL_IN / OUT bits curl waits for now
    bool reading = false;
    bool writing = false;
    bool closed = false;
};

curl_client::curl_client(const downstream_setup& setup)
    : base_url_(std::string(setup.server.scheme()) + "://" + setup.server.authority()),
      tls_(setup.options.tls),
      timeouts_(setup.timeouts),
      counters_(setup.counters),
      limit_(setup.options.connections),
      cap_(setup.executor, setup.options.connections, setup.options.queue, setup.timeouts.downstream_response,
           setup.counters),
      executor_(setup.executor),
      strand_(setup.executor),
      timer_(setup.executor)
{
    init_curl_once();
    if (!setup.endpoints.empty()) {
        auto address = setup.endpoints.begin()->endpoint().address();
        auto text = address.is_v6() ? "[" + address.to_string() + "]" : address.to_string();
        auto entry = setup.server.host + ":" + std::to_string(setup.server.port) + ":" + text;
        resolve_ = curl_slist_append(nullptr, entry.c_str());
    }
    multi_ = curl_multi_init();
    if (multi_ == nullptr)
        throw std::runtime_error("--downstream-client curl: no multi handle");
    curl_multi_setopt(multi_, CURLMOPT_SOCKETFUNCTION, &curl_client::on_socket);
    curl_multi_setopt(multi_, CURLMOPT_SOCKETDATA, this);
    curl_multi_setopt(multi_, CURLMOPT_TIMERFUNCTION, &curl_client::on_timer);
    curl_multi_setopt(multi_, CURLMOPT_TIMERDATA, this);
    if (limit_ > 0) {
        curl_multi_setopt(multi_, CURLMOPT_MAX_HOST_CONNECTIONS, static_cast<long>(limit_));
        curl_multi_setopt(multi_, CURLMOPT_MAXCONNECTS, static_cast<long>(limit_));
    }
}

curl_client::~curl_client()
{
    // The io_context no longer runs: the handlers of the calls still in progress are dropped, not called.
    for (auto& [handle, t] : transfers_)
        curl_multi_remove_handle(multi_, handle);
    transfers_.clear();
    curl_multi_cleanup(multi_);  // closes the cached connections through close_socket
    sockets_.clear();
    idle_multi_.clear();
    idle_blocking_.clear();
    curl_slist_free_all(resolve_);
}

std::unique_ptr<curl_client::easy> curl_client::take_easy(std::vector<std::unique_ptr<easy>>& idle, bool for_multi)
{
    if (!idle.empty()) {
        auto e = std::move(idle.back());
        idle.pop_back();
        return e;
    }
    auto e = std::make_unique<easy>();
    auto* h = e->handle;
    e->cancelled = &cancelled_;
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, e->error);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, &easy::on_body);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, e.get());
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_PROXY, "");  // never a proxy from the environment
    curl_easy_setopt(h, CURLOPT_HTTP_VERSION, static_cast<long>(CURL_HTTP_VERSION_1_1));
    curl_easy_setopt(h, CURLOPT_USERAGENT, "execbench-downstream");
    curl_easy_setopt(h, CURLOPT_TCP_NODELAY, 1L);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS,
                     static_cast<long>(std::min(timeouts_.downstream_connect, timeouts_.downstream_response).count()));
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, static_cast<long>(timeouts_.downstream_response.count()));
    if (resolve_ != nullptr)
        curl_easy_setopt(h, CURLOPT_RESOLVE, resolve_);
    // https: checked as the Beast clients check (not at all unless --downstream-tls-verify or --downstream-ca).
    curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, tls_.verify ? 1L : 0L);
    curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, tls_.verify ? 2L : 0L);
    if (!tls_.ca_file.empty())
        curl_easy_setopt(h, CURLOPT_CAINFO, tls_.ca_file.c_str());
    if (for_multi) {
        curl_easy_setopt(h, CURLOPT_OPENSOCKETFUNCTION, &curl_client::open_socket);
        curl_easy_setopt(h, CURLOPT_OPENSOCKETDATA, this);
        curl_easy_setopt(h, CURLOPT_CLOSESOCKETFUNCTION, &curl_client::close_socket);
        curl_easy_setopt(h, CURLOPT_CLOSESOCKETDATA, this);
    } else {
        // One connection per handle: the handle is the blocking caller's connection.
        curl_easy_setopt(h, CURLOPT_MAXCONNECTS, 1L);
        curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
        curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, &easy::on_progress);
        curl_easy_setopt(h, CURLOPT_XFERINFODATA, e.get());
    }
    return e;
}

http::call_outcome curl_client::finish(easy& e, int result)
{
    auto code = static_cast<CURLcode>(result);
    long connects = 0;
    long local_port = 0;
    curl_easy_getinfo(e.handle, CURLINFO_NUM_CONNECTS, &connects);
    curl_easy_getinfo(e.handle, CURLINFO_LOCAL_PORT, &local_port);
    for (long i = 0; i < connects; ++i)
        counters_.connection_opened();
    if (connects == 0 && local_port != 0)
        counters_.connection_reused();
    if (code == CURLE_OK) {
        long status = 0;
        curl_easy_getinfo(e.handle, CURLINFO_RESPONSE_CODE, &status);
        if (status >= 200 && status < 300)
            return http::call_outcome::success();
        return {http::failure::downstream_bad_answer, "status " + std::to_string(status)};
    }
    if (code == CURLE_ABORTED_BY_CALLBACK || cancelled_)
        return http::call_outcome::from_error(boost::asio::error::operation_aborted);
    std::string detail = "curl: ";
    long os_error = 0;
    curl_easy_getinfo(e.handle, CURLINFO_OS_ERRNO, &os_error);
    if (os_error == EADDRNOTAVAIL)  // curl's own words lose the errno that says why the connect failed
        detail.append(http::no_ephemeral_port_detail);
    else
        detail.append(e.error[0] != '\0' ? e.error : curl_easy_strerror(code));
    return {classify(code), std::move(detail)};
}

http::call_outcome curl_client::get(std::string_view target)
{
    counters_.call_made();
    if (!cap_.try_acquire())
        if (auto permit = cap_.async_wait(boost::asio::use_future).get(); permit.failed)
            return permit;
    std::unique_ptr<easy> e;
    {
        std::lock_guard lock(easy_mutex_);
        e = take_easy(idle_blocking_, false);
    }
    e->error[0] = '\0';
    e->body_bytes = 0;
    auto url = base_url_ + std::string(target);
    curl_easy_setopt(e->handle, CURLOPT_URL, url.c_str());
    auto outcome = cancelled_ ? http::call_outcome::from_error(boost::asio::error::operation_aborted)
                              : finish(*e, curl_easy_perform(e->handle));
    {
        std::lock_guard lock(easy_mutex_);
        if (idle_blocking_.size() < idle_easy_limit)
            idle_blocking_.push_back(std::move(e));
    }
    cap_.release();
    return outcome;
}

void curl_client::start_get(std::string_view target, handler_type handler)
{
    counters_.call_made();
    auto t = std::make_unique<transfer>(std::move(handler));
    auto url = base_url_ + std::string(target);
    // Everything else on the strand: the multi handle and its idle easy handles are not thread-safe.
    auto start = [this, t = std::move(t), url = std::move(url)]() mutable {
        t->e = take_easy(idle_multi_, true);
        t->e->error[0] = '\0';
        t->e->body_bytes = 0;
        curl_easy_setopt(t->e->handle, CURLOPT_URL, url.c_str());  // curl copies the string
        if (cancelled_)
            return complete(std::move(t), http::call_outcome::from_error(boost::asio::error::operation_aborted));
        if (cap_.try_acquire()) {
            t->permitted = true;
            return add(std::move(t));
        }
        auto& cap = cap_;
        cap.async_wait(boost::asio::bind_executor(strand_, [this, t = std::move(t)](http::call_outcome permit) mutable {
            if (permit.failed)
                return complete(std::move(t), std::move(permit));
            t->permitted = true;
            add(std::move(t));
        }));
    };
    boost::asio::post(strand_, std::move(start));
}

void curl_client::add(std::unique_ptr<transfer> t)
{
    auto* handle = t->e->handle;
    curl_easy_setopt(handle, CURLOPT_PRIVATE, t.get());
    transfers_.emplace(handle, std::move(t));
    if (auto rc = curl_multi_add_handle(multi_, handle); rc != CURLM_OK) {
        auto node = transfers_.extract(handle);
        complete(std::move(node.mapped()),
                 {http::failure::downstream_unavailable, std::string("curl: ") + curl_multi_strerror(rc)});
    }
    // curl asks for a timeout through on_timer; the transfer starts when it fires.
}

void curl_client::complete(std::unique_ptr<transfer> t, http::call_outcome outcome)
{
    if (t->permitted)
        cap_.release();
    if (t->e && idle_multi_.size() < idle_easy_limit)
        idle_multi_.push_back(std::move(t->e));
    auto handler = std::move(t->handler);
    t.reset();
    std::move(handler)(std::move(outcome));
}

void curl_client::act(curl_socket_t fd, int events)
{
    int running = 0;
    curl_multi_socket_action(multi_, fd, events, &running);
    int left = 0;
    while (CURLMsg* msg = curl_multi_info_read(multi_, &left)) {
        if (msg->msg != CURLMSG_DONE)
            continue;
        auto* handle = msg->easy_handle;
        auto code = msg->data.result;
        curl_multi_remove_handle(multi_, handle);
        auto node = transfers_.extract(handle);
        if (node.empty())
            continue;
        auto outcome = finish(*node.mapped()->e, code);
        complete(std::move(node.mapped()), std::move(outcome));
    }
}

void curl_client::watch(const std::shared_ptr<watched_socket>& s, bool read)
{
    bool& pending = read ? s->reading : s->writing;
    if (pending)
        return;
    pending = true;
    auto type = read ? socket_type::wait_read : socket_type::wait_write;
    s->socket.async_wait(type, boost::asio::bind_executor(strand_, [this, s, read](boost::system::error_code ec) {
        (read ? s->reading : s->writing) = false;
        const int bit = read ? CURL_POLL_IN : CURL_POLL_OUT;
        if (ec || s->closed || (s->wanted & bit) == 0)
            return;
        act(s->socket.native_handle(), read ? CURL_CSELECT_IN : CURL_CSELECT_OUT);
        if (!s->closed && (s->wanted & bit) != 0)
            watch(s, read);
    }));
}

void curl_client::cancel()
{
    cancelled_ = true;
    cap_.cancel();
    boost::asio::post(strand_, [this] { abort_all(); });
}

void curl_client::abort_all()
{
    std::vector<std::unique_ptr<transfer>> aborted;
    for (auto& [handle, t] : transfers_) {
        curl_multi_remove_handle(multi_, handle);
        aborted.push_back(std::move(t));
    }
    transfers_.clear();
    for (auto& t : aborted)
        complete(std::move(t), http::call_outcome::from_error(boost::asio::error::operation_aborted));
}

int curl_client::on_socket(CURL*, curl_socket_t fd, int what, void* client, void*)
{
    auto& self = *static_cast<curl_client*>(client);
    auto it = self.sockets_.find(fd);
    if (it == self.sockets_.end())
        return 0;
    auto s = it->second;
    s->wanted = what == CURL_POLL_REMOVE ? 0 : what;
    if ((s->wanted & CURL_POLL_IN) != 0)
        self.watch(s, true);
    if ((s->wanted & CURL_POLL_OUT) != 0)
        self.watch(s, false);
    return 0;
}

int curl_client::on_timer(CURLM*, long timeout_ms, void* client)
{
    auto& self = *static_cast<curl_client*>(client);
    if (timeout_ms < 0) {
        self.timer_.cancel();
        return 0;
    }
    // Never act from inside this callback (curl forbids it): even a zero timeout goes through the io_context.
    self.timer_.expires_after(std::chrono::milliseconds(timeout_ms));
    self.timer_.async_wait(boost::asio::bind_executor(self.strand_, [&self](boost::system::error_code ec) {
        if (!ec)
            self.act(CURL_SOCKET_TIMEOUT, 0);
    }));
    return 0;
}

curl_socket_t curl_client::open_socket(void* client, curlsocktype purpose, struct curl_sockaddr* address)
{
    auto& self = *static_cast<curl_client*>(client);
    if (purpose != CURLSOCKTYPE_IPCXN || (address->family != AF_INET && address->family != AF_INET6))
        return CURL_SOCKET_BAD;
    auto s = std::make_shared<watched_socket>(self.executor_);
    boost::system::error_code ec;
    s->socket.open(address->family == AF_INET6 ? tcp::v6() : tcp::v4(), ec);
    if (ec)
        return CURL_SOCKET_BAD;
    auto fd = s->socket.native_handle();
    self.sockets_.emplace(fd, std::move(s));
    return fd;
}

int curl_client::close_socket(void* client, curl_socket_t fd)
{
    auto& self = *static_cast<curl_client*>(client);
    auto it = self.sockets_.find(fd);
    if (it == self.sockets_.end())
        return ::close(fd);
    it->second->closed = true;
    boost::system::error_code ec;
    it->second->socket.close(ec);  // its pending waits complete as aborted
    self.sockets_.erase(it);
    return 0;
}

}  // namespace execbench::models
