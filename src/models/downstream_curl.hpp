#pragma once

#include "connection_cap.hpp"
#include "downstream.hpp"
#include "server_support.hpp"

#include "execbench/tls/client_context.hpp"

#include <boost/asio/strand.hpp>

#include <curl/curl.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace execbench::models {

/// The libcurl client of `--downstream-client curl`.
///
/// `get` (the pool's blocking call) runs `curl_easy_perform` on an easy handle taken from the idle ones and given
/// back after, so each handle keeps its connection for the next call, as a worker thread's own handle would.
/// `async_get` (the event models) drives one multi handle on the client's io_context the way curl's `asiohiper`
/// example does: curl opens its sockets through us (as Asio sockets), says through CURLMOPT_SOCKETFUNCTION which
/// readiness it waits for and through CURLMOPT_TIMERFUNCTION when to call it back; Asio's reactor watches, and each
/// event goes back to `curl_multi_socket_action`. The multi handle's connection cache is this client's, so
/// connections are reused across calls. Every multi call runs on a strand: fiber's carriers share an io_context.
/// `--downstream-connections` caps both ways (the cap's permits, CURLMOPT_MAX_HOST_CONNECTIONS and MAXCONNECTS).
class curl_client final : public downstream_client {
public:
    /// A client as `setup` says; initialises libcurl once per process.
    explicit curl_client(const downstream_setup& setup);
    /// Ends the transfers in progress without completing them (the io_context has stopped) and frees every handle.
    ~curl_client() override;
    curl_client(const curl_client&) = delete;
    curl_client& operator=(const curl_client&) = delete;

    http::call_outcome get(std::string_view target) override;
    void cancel() override;

protected:
    void start_get(std::string_view target, handler_type handler) override;

private:
    /// An easy handle with what its callbacks fill in; reused call after call.
    struct easy;
    /// One call on the multi handle.
    struct transfer;
    /// A socket curl opened through us, and the readiness curl waits for on it.
    struct watched_socket;

    std::unique_ptr<easy> take_easy(std::vector<std::unique_ptr<easy>>& idle, bool for_multi);
    http::call_outcome finish(easy& e, int code);

    void add(std::unique_ptr<transfer> t);                  // on the strand, holding a permit
    void complete(std::unique_ptr<transfer> t, http::call_outcome outcome);  // on the strand
    void act(curl_socket_t fd, int events);                          // curl_multi_socket_action, then the finished calls
    void watch(const std::shared_ptr<watched_socket>& s, bool read);
    void abort_all();

    static int on_socket(CURL* handle, curl_socket_t fd, int what, void* client, void* socket_data);
    static int on_timer(CURLM* multi, long timeout_ms, void* client);
    static curl_socket_t open_socket(void* client, curlsocktype purpose, struct curl_sockaddr* address);
    static int close_socket(void* client, curl_socket_t fd);

    std::string base_url_;  // "http://host:port" or "https://host:port"
    tls::client_options tls_;  // how an https downstream is checked
    curl_slist* resolve_ = nullptr;  // host:port:address, so no call resolves the name again
    const http::timeouts& timeouts_;
    endpoints::downstream_counters& counters_;
    std::size_t limit_;
    connection_cap cap_;
    std::atomic<bool> cancelled_{false};

    std::mutex easy_mutex_;  // the blocking side's idle handles, shared by the pool's workers
    std::vector<std::unique_ptr<easy>> idle_blocking_;

    // The multi side: touched only on strand_.
    boost::asio::io_context::executor_type executor_;
    boost::asio::strand<boost::asio::io_context::executor_type> strand_;
    timer_type timer_;
    CURLM* multi_ = nullptr;
    std::unordered_map<curl_socket_t, std::shared_ptr<watched_socket>> sockets_;
    std::unordered_map<CURL*, std::unique_ptr<transfer>> transfers_;
    std::vector<std::unique_ptr<easy>> idle_multi_;
};

}  // namespace execbench::models
