// Integration: bench-load's library against the real bench-server binary, every shape under every model.
#include "execbench/core/model_names.hpp"
#include "execbench/load/run/run_output.hpp"
#include "execbench/load/run/runner.hpp"

#include "support/child_process.hpp"
#include "support/one_trial_scenario.hpp"

#include <catch2/catch.hpp>

#ifdef EXECBENCH_BENCH_SERVER_PATH

#include <chrono>
#include <string>

using namespace execbench::load;
using execbench::test_support::server_process;
using namespace std::chrono_literals;

namespace {

scenario base(const std::string& path, shape kind)
{
    return execbench::test_support::one_trial_of(path, kind, 10s, "integration");
}

trial_result check_clean_run(const scenario& s, server_process& server, const std::string& model)
{
    run_options o;
    o.url = "http://127.0.0.1:" + std::to_string(server.port());
    auto r = run(s, o);
    INFO((r.ok() ? std::string() : r.err().message));
    REQUIRE(r.ok());
    REQUIRE(r->trials.size() == 1);
    auto kept = r->trials.front();
    const auto& fg = kept.measured.foreground;
    INFO(format_trial_line(*r, kept));
    CHECK(r->server.model == model);
    CHECK(r->server.sampling == "proc");
    CHECK(r->server.pid == server.process().pid());
    REQUIRE(kept.server.has_value());
    CHECK(kept.server->resident_mb_max > 0);
    CHECK(fg.count.ok > 0);
    CHECK(fg.count.error_total() == 0);
    return kept;
}

}  // namespace

TEST_CASE("every load shape runs cleanly against bench-server under every model", "[load][integration]")
{
    const std::string model{GENERATE(from_range(execbench::model_names))};
    // A model whose waits hold its threads needs more of them for 20 connections' waits to overlap.
    server_process server({"--model=" + model, "--threads", execbench::wait_holds_thread(model) ? "16" : "2"});

    DYNAMIC_SECTION(model << ": burst")
    {
        auto s = base("/io?delayInMillis=100", shape::burst);
        s.load.requests = 40;
        s.load.connections = 20;  // two requests per connection, in sequence
        auto t = check_clean_run(s, server, model);
        const auto& fg = t.measured.foreground;
        CHECK(fg.count.ok == 40);
        CHECK(fg.latency.min() >= 100'000);  // the delay is a lower bound
        CHECK(fg.wall >= 200ms);
    }
    DYNAMIC_SECTION(model << ": closed")
    {
        auto s = base("/epoch-millis?delayInMillis=0", shape::closed);
        s.load.connections = 4;
        s.load.length = 400ms;
        auto t = check_clean_run(s, server, model);
        const auto& fg = t.measured.foreground;
        CHECK(fg.count.ok > 50);
    }
    DYNAMIC_SECTION(model << ": open")
    {
        auto s = base("/epoch-millis?delayInMillis=10", shape::open);
        s.load.rate = 200;
        s.load.connections = 20;
        s.load.length = 600ms;
        auto t = check_clean_run(s, server, model);
        const auto& fg = t.measured.foreground;
        CHECK(fg.count.ok + fg.count.unsent == 120);
        CHECK(fg.latency.min() >= 10'000);
    }
    DYNAMIC_SECTION(model << ": ramp")
    {
        auto s = base("/movies?directorLastName=Kubrick", shape::ramp);
        s.load.profile = ramp_profile::stages;
        s.load.stages = {{600ms, 10}, {400ms, 10}};
        s.load.think_min = 20ms;
        s.load.think_max = 60ms;
        prepare_ramp(s.load);
        auto t = check_clean_run(s, server, model);
        const auto& fg = t.measured.foreground;
        CHECK(fg.count.ok > 20);
        CHECK(fg.count.body_bytes_received > 0);
    }
    DYNAMIC_SECTION(model << ": ramp up and down, and the kernel's counters")
    {
        // Up to 8 users, held, then down to 2 at 1.2 s: the users wanted and the sockets open follow the target
        // without a pass over the users (group::control), and retired users close their sockets.
        auto s = base("/movies?directorLastName=Kubrick", shape::ramp);
        s.load.profile = ramp_profile::stages;
        s.load.stages = {{500ms, 8}, {700ms, 8}, {0ms, 2}, {800ms, 2}};
        s.load.think_min = 10ms;
        s.load.think_max = 30ms;
        prepare_ramp(s.load);
        auto t = check_clean_run(s, server, model);
        const auto& tl = t.measured.foreground.timeline;
        REQUIRE(tl.size() >= 2);
        CHECK(tl[0].sampled);
        CHECK(tl[0].users == 8);
        CHECK(tl[0].connections == 8);
        CHECK(tl[1].users == 2);
        // A user that left closes its socket when its request or pause is over (30 ms at most here).
        CHECK(tl[1].connections <= 3);
        // The counters are the whole namespace's, so other traffic can only add to them.
        REQUIRE(t.kernel.has_value());
        CHECK(t.kernel->active_opens >= 8);
        CHECK(t.kernel->passive_opens >= 8);
    }
    DYNAMIC_SECTION(model << ": background and foreground")
    {
        auto s = base("/io?delayInMillis=50", shape::burst);
        s.load.requests = 5;
        background_spec bg;
        request_spec cpu;
        cpu.path = "/cpu?iterations=2000";
        bg.mix.push_back(cpu);
        bg.load.kind = shape::burst;
        bg.load.requests = 10;
        s.background = bg;
        auto t = check_clean_run(s, server, model);
        const auto& fg = t.measured.foreground;
        CHECK(fg.count.ok == 5);
        REQUIRE(t.measured.background.has_value());
        CHECK(t.measured.background->count.ok == 10);
        CHECK(t.measured.background->count.error_total() == 0);
    }
}

#endif
