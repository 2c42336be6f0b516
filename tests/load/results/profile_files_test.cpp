#include "execbench/load/results/profile_files.hpp"

#include "execbench/load/profile/perf_output.hpp"
#include "execbench/load/results/flame_graph.hpp"

#include "support/temp_dir.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

using namespace execbench::load;

namespace {

// Two samples of `perf script` (default fields, --call-graph dwarf) as perf 6.1 prints them, trimmed, plus one
// without frames and a thread name with a space.
constexpr const char* script_sample = R"(bench-server 27526 15293.747687:    2004008 cpu-clock:ppp: 
	ffffffff8226e861 _raw_spin_unlock_irq+0x11 ([kernel.kallsyms])
	ffffffff81757908 __x64_sys_timerfd_settime+0x98 ([kernel.kallsyms])
	          1093ea __timerfd_settime+0xa (inlined)
	           6be3b boost::asio::detail::epoll_reactor::run+0x19b (/build/bench-server)
	           d8d30 boost::asio::detail::scheduler::run+0x190 (/build/bench-server)
	           d92ad std::thread::_State_impl<std::thread::_Invoker<std::tuple<execbench::models::run_in_thread(boost::asio::io_context&)::{lambda()#1}> > >::_M_run+0x4d (/build/bench-server)
	           d44a2 [unknown] (/usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.30)
	           891f4 start_thread+0x304 (/usr/lib/x86_64-linux-gnu/libc.so.6)

bench-server 27527 15293.545469:    2004008 cpu-clock:ppp: 
	             bd9 __vdso_clock_gettime+0xc9 ([vdso])
	           80f44 execbench::models::(anonymous namespace)::fiber_server::write(std::shared_ptr<int>, boost::asio::basic_yield_context<boost::asio::any_io_executor> const&)+0x34 (/build/bench-server)
	           891f4 start_thread+0x304 (/usr/lib/x86_64-linux-gnu/libc.so.6)

bench-server 27527 15293.745469:    2004008 cpu-clock:ppp: 
	             bd9 __vdso_clock_gettime+0xc9 ([vdso])
	           80f44 execbench::models::(anonymous namespace)::fiber_server::write(std::shared_ptr<int>, boost::asio::basic_yield_context<boost::asio::any_io_executor> const&)+0x44 (/build/bench-server)
	           891f4 start_thread+0x304 (/usr/lib/x86_64-linux-gnu/libc.so.6)

my worker 27528 15293.945469:    2004008 cpu-clock:ppp: 
)";

}  // namespace

TEST_CASE("symbols lose template arguments and parameter lists, not operators", "[load][profile]")
{
    CHECK(short_symbol("std::vector<int, std::allocator<int> >::push_back(int const&)") == "std::vector<...>::push_back");
    CHECK(short_symbol("execbench::models::(anonymous namespace)::fiber_server::write(std::shared_ptr<int>)") ==
          "execbench::models::(anonymous namespace)::fiber_server::write");
    CHECK(short_symbol("f()::{lambda(boost::system::error_code)#1}::operator()(boost::system::error_code) const") ==
          "f::{lambda#1}::operator() const");
    CHECK(short_symbol("std::operator<< <char>(std::ostream&, char const*)") == "std::operator<< <...>");
    CHECK(short_symbol("epoll_wait") == "epoll_wait");
}

TEST_CASE("perf script collapses into folded stacks, root first, one count per sample", "[load][profile]")
{
    auto stacks = collapse_perf_script(script_sample);
    REQUIRE(stacks.size() == 3);
    CHECK(stacks.at("bench-server;start_thread;[libstdc++.so.6.0.30];std::thread::_State_impl<...>::_M_run;"
                    "boost::asio::detail::scheduler::run;boost::asio::detail::epoll_reactor::run;__timerfd_settime;"
                    "__x64_sys_timerfd_settime_[k];_raw_spin_unlock_irq_[k]") == 1);
    // The offsets differ, the frame does not: both samples land on one stack.
    CHECK(stacks.at("bench-server;start_thread;execbench::models::(anonymous namespace)::fiber_server::write;"
                    "__vdso_clock_gettime") == 2);
    CHECK(stacks.at("my worker") == 1);

    auto top = top_self_time(stacks, 2);
    REQUIRE(top.size() == 2);
    CHECK(top[0].function == "__vdso_clock_gettime");
    CHECK(top[0].samples == 2);
    CHECK(top[0].percent == Approx(50));

    auto back = parse_folded(format_folded(stacks));
    REQUIRE(back);
    CHECK(*back == stacks);
    CHECK_FALSE(parse_folded("a;b;c twelve\n"));
}

TEST_CASE("perf stat's CSV gives CPU time, switches and system calls by name", "[load][profile]")
{
    auto counts = parse_perf_stat("# started on Tue Dec  1 15:58:31 2026\n\n"
                                  "309.23,msec,task-clock,309231099,100.00,0.234,CPUs utilized\n"
                                  "12,,context-switches,309216652,100.00,38.806,/sec\n"
                                  "<not counted>,,cpu-migrations,0,100.00,,\n"
                                  "900,,raw_syscalls:sys_enter,309207525,100.00,,\n"
                                  "300,,syscalls:sys_enter_futex,309207525,100.00,,\n"
                                  "500,,syscalls:sys_enter_sendmsg,309207525,100.00,,\n"
                                  "0,,syscalls:sys_enter_accept,309207525,100.00,,\n");
    REQUIRE(counts);
    CHECK(counts->task_clock_millis == Approx(309.23));
    CHECK(counts->context_switches == 12);
    CHECK(counts->cpu_migrations == 0);
    REQUIRE(counts->syscalls.size() == 2);  // accept was never called
    CHECK(counts->syscalls[0].first == "sendmsg");
    CHECK(counts->syscalls_unnamed() == 100);
    CHECK_FALSE(parse_perf_stat("nonsense\n"));
    CHECK_FALSE(parse_perf_stat("<not counted>,,task-clock,0,100.00,,\n"));
    CHECK(perf_stat_events().find("syscalls:sys_enter_futex") != std::string::npos);
}

TEST_CASE("a flame graph has a box per frame, as wide as its share, with its name in a tooltip", "[load][profile]")
{
    folded_stacks stacks{{"srv;main;execbench::handle;read_[k]", 3}, {"srv;main;other<int>", 1}};
    auto svg = flame_graph_svg(stacks, "t & <title>");
    CHECK(svg.rfind("<?xml", 0) == 0);
    CHECK(svg.find("t &amp; &lt;title&gt;") != std::string::npos);
    CHECK(svg.find("id=") == std::string::npos);  // inlined several times in one page
    CHECK(svg.find("<script") == std::string::npos);
    std::size_t rects = 0;
    for (auto at = svg.find("<rect x=\""); at != std::string::npos; at = svg.find("<rect x=\"", at + 1))
        ++rects;
    CHECK(rects == 1 + 6);  // the background, then all, srv, main, execbench::handle, read_[k], other<int>
    CHECK(svg.find("<title>execbench::handle (3 samples, 75.00 %)</title>") != std::string::npos);
    CHECK(svg.find("<title>other&lt;int&gt; (1 samples, 25.00 %)</title>") != std::string::npos);
    // all spans the width between the margins; execbench::handle three quarters of it.
    CHECK(svg.find("<title>all (4 samples, 100.00 %)</title><rect x=\"10.0\" y=\"") != std::string::npos);
    CHECK(svg.find("width=\"1180.0\"") != std::string::npos);
    CHECK(svg.find("width=\"885.0\"") != std::string::npos);
    CHECK(flame_graph_svg({}, "empty").find("no samples") != std::string::npos);
}

TEST_CASE("a profile's counts round-trip through its CSV", "[load][profile]")
{
    execbench::test_support::temp_dir d("execbench-profile-test");
    profile_capture c;
    c.run.run_id = "2026-12-01T10:00:00Z-abcd";
    c.run.scenario_used.name = "io-600";
    c.run.arm.name = "pool";
    c.run.server.model = "pool";
    trial_result t;
    t.measured.foreground.count.ok = 1000;
    t.measured.foreground.wall = std::chrono::seconds{2};
    c.run.trials.push_back(t);
    c.stacks = {{"srv;execbench::x", 7}};
    c.counts = perf_counts{};
    c.counts->task_clock_millis = 50;
    c.counts->context_switches = 1400;
    c.counts->syscalls_total = 3500;
    c.counts->syscalls = {{"futex", 3000}};
    c.notes = {"perf said, something"};
    REQUIRE(write_profile(c, d.path));
    for (const char* ext : {"svg", "folded", "csv"})
        CHECK(std::filesystem::exists(profile_path(d.path, "io-600", "pool", ext)));
    auto r = read_profile_csv(profile_path(d.path, "io-600", "pool", "csv"));
    REQUIRE(r);
    CHECK(r->run_id == c.run.run_id);
    CHECK(r->trial("requests") == 1000);
    CHECK(r->trial("requests_per_second") == Approx(500));
    CHECK(r->trial("samples") == 7);
    REQUIRE(r->find("cpu", "cpu_micros"));
    CHECK(r->find("cpu", "cpu_micros")->per_request == Approx(50));
    CHECK(r->find("switches", "context_switches")->per_request == Approx(1.4));
    CHECK(r->find("syscall", "futex")->per_request == Approx(3));
    CHECK(r->find("syscall", "other")->per_request == Approx(0.5));
    CHECK(r->notes() == std::vector<std::string>{"perf said, something"});

    // Without stacks, an older flame graph of the same arm goes: it would not match the counts.
    c.stacks.clear();
    REQUIRE(write_profile(c, d.path));
    CHECK_FALSE(std::filesystem::exists(profile_path(d.path, "io-600", "pool", "svg")));
    CHECK(std::filesystem::exists(profile_path(d.path, "io-600", "pool", "csv")));
}
