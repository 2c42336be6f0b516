// Hosts made of network namespaces (issue 13, §4): bench-server in one namespace, two bench-load shards in two
// others, each joined to the server's by its own veth pair; the shards' interval logs merged must hold every request
// the server answered. Needs root (CAP_NET_ADMIN) and `ip`; skipped with a message where namespaces cannot be made.
// Everything runs inside the namespaces the test creates, and removing them removes their links.
#include "execbench/load/distributed/shard.hpp"
#include "execbench/load/results/results.hpp"
#include "execbench/report/read/merge.hpp"

#include "support/child_process.hpp"
#include "support/raw_client.hpp"
#include "support/temp_dir.hpp"

#include <catch2/catch.hpp>

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <sched.h>
#include <unistd.h>

namespace {

using namespace execbench;
using namespace execbench::test_support;
using namespace std::chrono_literals;

/// The `ip` program, or "" when there is none.
std::string ip_program()
{
    for (const char* p : {"/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"})
        if (std::filesystem::exists(p))
            return p;
    return {};
}

/// Runs `ip args…`; its exit code and stderr.
std::pair<int, std::string> ip(const std::vector<std::string>& args)
{
    std::vector<std::string> argv{ip_program()};
    argv.insert(argv.end(), args.begin(), args.end());
    child_process p(argv);
    auto code = p.wait_exit(20s);
    return {code ? *code : -1, p.stderr_text()};
}

/// Network namespaces this test made, deleted (with their veth links) when it ends however it ends.
class namespaces {
public:
    ~namespaces()
    {
        for (const auto& n : names_)
            (void)ip({"netns", "del", n});
    }
    /// Creates namespace `name` with its loopback up; false (and the reason in `why`) when that is not allowed here.
    bool add(const std::string& name, std::string& why)
    {
        auto [code, err] = ip({"netns", "add", name});
        if (code != 0) {
            why = err;
            return false;
        }
        names_.push_back(name);
        return ip({"-n", name, "link", "set", "lo", "up"}).first == 0;
    }

private:
    std::vector<std::string> names_;
};

/// Links namespaces `a` and `b` with a veth pair and gives each end its address (a /30 prefix each); the first
/// failing `ip` command's message, or "" when all went.
std::string link(const std::string& a, const std::string& a_end, const std::string& a_addr, const std::string& b,
                 const std::string& b_end, const std::string& b_addr)
{
    for (const auto& args : std::vector<std::vector<std::string>>{
             {"-n", a, "link", "add", a_end, "type", "veth", "peer", "name", b_end, "netns", b},
             {"-n", a, "addr", "add", a_addr + "/30", "dev", a_end},
             {"-n", b, "addr", "add", b_addr + "/30", "dev", b_end},
             {"-n", a, "link", "set", a_end, "up"},
             {"-n", b, "link", "set", b_end, "up"}}) {
        if (auto [code, err] = ip(args); code != 0)
            return err.empty() ? "ip exited with " + std::to_string(code) : err;
    }
    return {};
}

/// The /io requests the server answered with 200, read from its /metrics on loopback inside namespace `ns`
/// (on a thread of its own: a network namespace is per thread).
std::uint64_t io_answered_in(const std::string& ns, std::uint16_t port)
{
    std::uint64_t answered = 0;
    std::string problem;
    std::thread reader([&] {
        int fd = ::open(("/var/run/netns/" + ns).c_str(), O_RDONLY | O_CLOEXEC);
        if (fd < 0 || ::setns(fd, CLONE_NEWNET) != 0) {
            problem = "cannot enter namespace " + ns;
            if (fd >= 0)
                ::close(fd);
            return;
        }
        ::close(fd);
        try {
            raw_client client(port);
            auto body = client.get("/metrics").body;
            const std::string sample = "execbench_requests_total{endpoint=\"io\",status=\"200\"} ";
            if (auto at = body.find(sample); at != std::string::npos)
                answered = std::stoull(body.substr(at + sample.size()));
        } catch (const std::exception& e) {
            problem = e.what();
        }
    });
    reader.join();
    INFO(problem);
    REQUIRE(problem.empty());
    return answered;
}

}  // namespace

TEST_CASE("shards in two network namespaces: their merged logs count what the server in a third answered",
          "[netns][hlog][merge][load][integration]")
{
    if (bench_load_path().empty() || bench_server_path().empty())
        return;
    if (ip_program().empty() || ::geteuid() != 0) {
        WARN("skipped: network namespaces need root and the `ip` program (iproute2)");
        return;
    }
    auto prefix = "eb" + std::to_string(::getpid());
    const std::string server_ns = prefix + "s", gen_ns[2] = {prefix + "g0", prefix + "g1"};
    namespaces made;
    std::string why;
    if (!made.add(server_ns, why)) {
        WARN("skipped: cannot create a network namespace here (" << why << ")");
        return;
    }
    for (const auto& g : gen_ns)
        REQUIRE(made.add(g, why));
    // One link per generator host: 10.213.0.1 <-> .2 and 10.213.0.5 <-> .6, inside the test's namespaces only.
    const std::string server_addr[2] = {"10.213.0.1", "10.213.0.5"};
    if (auto failed = link(server_ns, prefix + "s0", server_addr[0], gen_ns[0], prefix + "g0", "10.213.0.2");
        !failed.empty()) {
        WARN("skipped: cannot create a veth pair here (" << failed << ")");
        return;
    }
    auto second_link = link(server_ns, prefix + "s1", server_addr[1], gen_ns[1], prefix + "g1", "10.213.0.6");
    INFO(second_link);
    REQUIRE(second_link.empty());

    constexpr std::uint16_t port = 8080;  // the namespace's own port space: nothing else listens there
    child_process server({ip_program(), "netns", "exec", server_ns, bench_server_path(), "--model=loop", "--threads",
                          "1", "--host", "0.0.0.0", "--port", std::to_string(port)});
    auto started = server.read_line(10s);
    REQUIRE_THAT(started, Catch::Contains("port=8080"));

    temp_dir dir;
    auto start_at = load::epoch_millis_now() + 1500;
    std::vector<std::unique_ptr<child_process>> shards;
    for (int i = 0; i < 2; ++i) {
        auto name = "shard" + std::to_string(i);
        shards.push_back(std::make_unique<child_process>(
            std::vector<std::string>{ip_program(),
                                     "netns",
                                     "exec",
                                     gen_ns[i],
                                     bench_load_path(),
                                     "--url",
                                     "http://" + server_addr[i] + ":" + std::to_string(port) + "/io?delayInMillis=2",
                                     "--allow-remote",
                                     "--rate",
                                     "300",
                                     "--connections",
                                     "8",
                                     "--duration",
                                     "2s",
                                     "--warmup",
                                     "0s",
                                     "--trials",
                                     "1",
                                     "--quiet",
                                     "--shard",
                                     std::to_string(i) + "/2",
                                     "--start-at",
                                     std::to_string(start_at),
                                     "--out",
                                     (dir.path / (name + ".csv")).string(),
                                     "--hlog",
                                     (dir.path / (name + ".hlog")).string()}));
    }
    for (auto& s : shards) {
        auto code = s->wait_exit(60s);
        INFO("shard stderr: " << s->stderr_text());
        REQUIRE(code);
        CHECK(*code == 0);
        CHECK_THAT(s->stderr_text(), !Catch::Contains("late for --start-at"));
    }

    // The union of the shards' requests: their full-precision histograms.
    stats::histogram all;
    for (const char* name : {"shard0", "shard1"}) {
        auto records =
            load::read_histograms(load::output_paths_for(dir.path / (std::string(name) + ".csv")).histograms);
        REQUIRE(records);
        for (const auto& rec : *records)
            if (rec.series == "latency")
                REQUIRE(all.merge(rec.histogram));
    }
    report::merge_options options;
    options.logs = {dir.path / "shard0.hlog", dir.path / "shard1.hlog"};
    options.tag = "loop/latency";
    auto merged = report::merge_logs(options);
    REQUIRE(merged);
    REQUIRE(merged->series.size() == 1);
    const auto& m = merged->series.front();
    CHECK(m.logs == 2);
    // 300 req/s for 2 s, split over the two shards.
    CHECK(m.values.count() == 600);
    // Each shard sent one pre-flight request besides its trial.
    CHECK(io_answered_in(server_ns, port) == m.values.count() + 2);
    CHECK(m.values.counts() == all.counts());
    for (double p : {50.0, 90.0, 99.0, 99.9, 100.0})
        CHECK(m.values.value_at_percentile(p) == all.value_at_percentile(p));
}
