#include "execbench/stats/process.hpp"
#include "execbench/stats/sampler.hpp"

#include <catch2/catch.hpp>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

using namespace std::chrono_literals;
using execbench::stats::find_listening_pid;
using execbench::stats::proc_source;
using execbench::stats::sample_depth;
using execbench::stats::sample_process;

namespace {

/// A socket closed on scope exit.
struct socket_fd {
    int fd;
    explicit socket_fd(int family) : fd(::socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0)) {}
    ~socket_fd()
    {
        if (fd >= 0)
            ::close(fd);
    }
    socket_fd(const socket_fd&) = delete;
    socket_fd& operator=(const socket_fd&) = delete;
};

/// Binds an IPv4 loopback socket to an ephemeral port and returns the port (0 on failure).
std::uint16_t bind_loopback(const socket_fd& s)
{
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = 0;
    if (::bind(s.fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0)
        return 0;
    socklen_t length = sizeof address;
    if (::getsockname(s.fd, reinterpret_cast<sockaddr*>(&address), &length) != 0)
        return 0;
    return ntohs(address.sin_port);
}

}  // namespace

TEST_CASE("sample_process reads this process", "[stats]")
{
    // A fresh test process may not have been switched out yet; a short sleep is one voluntary switch for certain.
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    auto s = sample_process();
    REQUIRE(s.ok());
    CHECK(s->resident_bytes > 1024 * 1024);
    CHECK(s->threads >= 1);
    CHECK(s->open_fds >= 3);
    CHECK(s->cpu_seconds >= 0);
    CHECK(s->voluntary_switches + s->involuntary_switches > 0);

    auto by_pid = sample_process(::getpid());
    REQUIRE(by_pid.ok());
    CHECK(by_pid->open_fds == s->open_fds);
    CHECK(by_pid->threads == s->threads);
}

TEST_CASE("sample_process names the file it could not read", "[stats]")
{
    // Above the kernel's largest pid_max (2^22), so no such process can exist.
    auto s = sample_process(1 << 30);
    REQUIRE_FALSE(s.ok());
    CHECK_THAT(s.err().message, Catch::Contains("/proc/1073741824/status"));
}

TEST_CASE("sample_process sees a new thread", "[stats]")
{
    auto before = sample_process();
    REQUIRE(before.ok());
    std::mutex mutex;
    std::condition_variable cv;
    bool release = false;
    std::thread waiter([&] {
        std::unique_lock lock(mutex);
        cv.wait_for(lock, 10s, [&] { return release; });
    });
    auto during = sample_process();
    {
        std::lock_guard lock(mutex);
        release = true;
    }
    cv.notify_all();
    waiter.join();
    REQUIRE(during.ok());
    CHECK(during->threads >= before->threads + 1);
}

TEST_CASE("sample_process sums context switches over all threads", "[stats]")
{
    auto before = sample_process();
    REQUIRE(before.ok());
    // The thread sleeps 30 times (a voluntary switch each) and stays alive while sampled: counters of exited
    // threads leave the sum, and the main thread alone would show about one switch.
    std::mutex mutex;
    std::condition_variable cv;
    bool slept = false;
    bool release = false;
    std::thread sleeper([&] {
        for (int i = 0; i < 30; ++i)
            std::this_thread::sleep_for(1ms);
        std::unique_lock lock(mutex);
        slept = true;
        cv.notify_all();
        cv.wait_for(lock, 10s, [&] { return release; });
    });
    {
        std::unique_lock lock(mutex);
        REQUIRE(cv.wait_for(lock, 10s, [&] { return slept; }));
    }
    auto during = sample_process();
    {
        std::lock_guard lock(mutex);
        release = true;
    }
    cv.notify_all();
    sleeper.join();
    REQUIRE(during.ok());
    CHECK(during->voluntary_switches >= before->voluntary_switches + 30);
}

TEST_CASE("sample_process counts open sockets", "[stats]")
{
    auto before = sample_process();
    REQUIRE(before.ok());
    socket_fd a(AF_INET);
    socket_fd b(AF_INET);
    REQUIRE(a.fd >= 0);
    REQUIRE(b.fd >= 0);
    auto during = sample_process();
    REQUIRE(during.ok());
    CHECK(during->open_sockets == before->open_sockets + 2);
    CHECK(during->open_fds == before->open_fds + 2);
}

TEST_CASE("find_listening_pid finds this process on its listening port", "[stats]")
{
    socket_fd listener(AF_INET);
    REQUIRE(listener.fd >= 0);
    auto port = bind_loopback(listener);
    REQUIRE(port != 0);

    // Bound but not listening: nobody listens on the port yet.
    CHECK_FALSE(find_listening_pid(port).has_value());

    REQUIRE(::listen(listener.fd, 4) == 0);
    auto pid = find_listening_pid(port);
    REQUIRE(pid.has_value());
    CHECK(*pid == ::getpid());
}

TEST_CASE("find_listening_pid finds an IPv6 listener", "[stats]")
{
    socket_fd listener(AF_INET6);
    if (listener.fd < 0) {
        WARN("no IPv6 on this machine");
        return;
    }
    sockaddr_in6 address{};
    address.sin6_family = AF_INET6;
    address.sin6_addr = in6addr_loopback;
    if (::bind(listener.fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
        WARN("cannot bind the IPv6 loopback address");
        return;
    }
    socklen_t length = sizeof address;
    REQUIRE(::getsockname(listener.fd, reinterpret_cast<sockaddr*>(&address), &length) == 0);
    REQUIRE(::listen(listener.fd, 4) == 0);
    auto pid = find_listening_pid(ntohs(address.sin6_port));
    REQUIRE(pid.has_value());
    CHECK(*pid == ::getpid());
}

TEST_CASE("a cheap reading counts the fds a full one walks, without walking", "[stats]")
{
    socket_fd a(AF_INET);
    REQUIRE(a.fd >= 0);
    auto full = sample_process(0, sample_depth::full);
    auto cheap = sample_process(0, sample_depth::cheap);
    REQUIRE(full.ok());
    REQUIRE(cheap.ok());
    CHECK(full->walked);
    CHECK_FALSE(cheap->walked);
    CHECK(cheap->open_fds == full->open_fds);
    CHECK(cheap->open_sockets == 0);
    CHECK(cheap->threads == full->threads);
    CHECK(cheap->resident_bytes > 0);
    // This process's switches come from getrusage at either depth.
    CHECK(cheap->voluntary_switches >= full->voluntary_switches);
}

TEST_CASE("proc_source's cheap readings follow the sockets opened after the last full one", "[stats]")
{
    auto source = proc_source(0);
    auto full = source(sample_depth::full);
    REQUIRE(full.has_value());
    REQUIRE(full->walked);
    socket_fd a(AF_INET);
    socket_fd b(AF_INET6);
    socket_fd c(AF_INET);
    REQUIRE(a.fd >= 0);
    REQUIRE(b.fd >= 0);
    REQUIRE(c.fd >= 0);
    auto cheap = source(sample_depth::cheap);
    REQUIRE(cheap.has_value());
    CHECK_FALSE(cheap->walked);
    CHECK(cheap->open_fds == full->open_fds + 3);
    CHECK(cheap->open_sockets == full->open_sockets + 3);
}
