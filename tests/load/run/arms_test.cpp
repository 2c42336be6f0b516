#include "execbench/core/cpus.hpp"
#include "execbench/load/results/ledger.hpp"
#include "execbench/load/results/results.hpp"
#include "execbench/load/run/arm.hpp"
#include "execbench/load/run/run_output.hpp"
#include "execbench/load/record/trial_metrics.hpp"
#include "execbench/load/suite/suite.hpp"

#include "support/temp_dir.hpp"

#include <nlohmann/json.hpp>

#include <catch2/catch.hpp>

#include <fstream>
#include <set>

#include <unistd.h>

using namespace execbench::load;
using namespace std::chrono_literals;

TEST_CASE("an arm can be a command of the user's or a running server's address", "[load][arms]")
{
    auto nginx = parse_arm("nginx=cmd:peers/nginx/run {port}");
    REQUIRE(nginx);
    CHECK(nginx->kind() == arm_kind::command);
    CHECK(nginx->command == "peers/nginx/run {port}");
    CHECK(nginx->model.empty());
    // Colons, commas and '=' belong to the command, not to arm options.
    auto quoted = parse_arm("g=cmd:gunicorn -w 2 -b 127.0.0.1:{port} app:app --env A=1,B=2");
    REQUIRE(quoted);
    CHECK(quoted->command == "gunicorn -w 2 -b 127.0.0.1:{port} app:app --env A=1,B=2");
    auto running = parse_arm("mine=url:http://127.0.0.1:8080");
    REQUIRE(running);
    CHECK(running->kind() == arm_kind::url);
    CHECK(running->url == "http://127.0.0.1:8080");
    auto secure = parse_arm("tls=url:https://127.0.0.1:8443");  // a server serving https, for a TLS scenario
    REQUIRE(secure);
    CHECK(secure->url == "https://127.0.0.1:8443");
    CHECK(parse_arm("l=loop")->kind() == arm_kind::model);

    auto error_of = [](const char* text) {
        auto r = parse_arm(text);
        REQUIRE_FALSE(r);
        return r.err().message;
    };
    CHECK_THAT(error_of("x=cmd:nginx -c /etc/nginx.conf"), Catch::Contains("has no {port}"));
    CHECK_THAT(error_of("x=cmd:  "), Catch::Contains("no command"));
    CHECK_THAT(error_of("x=url:http://10.0.0.7:80"), Catch::Contains("not a loopback address"));
    CHECK_THAT(error_of("x=url:ftp://127.0.0.1:80"), Catch::Contains("http:// or https://"));
    CHECK_THAT(error_of("x=url:http://127.0.0.1:80/api"), Catch::Contains("without a path"));
    CHECK_THAT(error_of("x=nginx"), Catch::Contains("NAME=cmd:"));
}

TEST_CASE("arms parse NAME=MODEL[:OPTION=VALUE,...] and say what is wrong", "[load][arms]")
{
    auto a = parse_arm("pool400=pool:threads=400,queue=50");
    REQUIRE(a);
    CHECK(a->name == "pool400");
    CHECK(a->model == "pool");
    CHECK(arm_server_args(*a) == std::vector<std::string>{"--model", "pool", "--threads", "400", "--queue", "50"});
    auto plain = parse_arm("a=loop");
    REQUIRE(plain);
    CHECK(plain->options.empty());
    CHECK(arm_server_args(*plain) == std::vector<std::string>{"--model", "loop"});
    auto flag = parse_arm("ro=fiber:movies-read-only=true,fiber-stack-kb=64");
    REQUIRE(flag);
    CHECK(arm_server_args(*flag) ==
          std::vector<std::string>{"--model", "fiber", "--movies-read-only", "--fiber-stack-kb", "64"});

    auto error_of = [](const char* text) {
        auto r = parse_arm(text);
        REQUIRE_FALSE(r);
        return r.err().message;
    };
    CHECK_THAT(error_of("pool"), Catch::Contains("no '='"));
    CHECK_THAT(error_of("=pool"), Catch::Contains("name"));
    CHECK_THAT(error_of("a b=pool"), Catch::Contains("name 'a b'"));
    CHECK_THAT(error_of("x=threads"), Catch::Contains("model 'threads' is not one of pool, fiber, loop, coro"));
    CHECK_THAT(error_of("x=pool:"), Catch::Contains("no options"));
    CHECK_THAT(error_of("x=pool:threads"), Catch::Contains("not OPTION=VALUE"));
    CHECK_THAT(error_of("x=pool:color=red"), Catch::Contains("unknown option 'color'"));
    CHECK_THAT(error_of("x=pool:threads=many"), Catch::Contains("not a number"));
    CHECK_THAT(error_of("x=pool:threads=4,threads=8"), Catch::Contains("given twice"));
    // Timeouts are seconds or durations, as bench-server takes them; other options stay plain numbers.
    auto idle = parse_arm("short=loop:idle-timeout=500ms,header-timeout=2");
    REQUIRE(idle);
    CHECK(arm_server_args(*idle) ==
          std::vector<std::string>{"--model", "loop", "--idle-timeout", "500ms", "--header-timeout", "2"});
    CHECK_THAT(error_of("x=loop:idle-timeout=soon"), Catch::Contains("not a number of seconds or a duration"));
    CHECK_THAT(error_of("x=pool:threads=4s"), Catch::Contains("option threads: '4s' is not a number"));
    CHECK_THAT(error_of("x=pool:cpus=0"), Catch::Contains("unknown option 'cpus'"));  // pinning is per suite
    // The downstream client is a name, its cap and queue numbers.
    auto client = parse_arm("loop-curl=loop:downstream-client=curl,downstream-connections=8");
    REQUIRE(client);
    CHECK(arm_server_args(*client) == std::vector<std::string>{"--model", "loop", "--downstream-client", "curl",
                                                               "--downstream-connections", "8"});
    CHECK_THAT(error_of("x=loop:downstream-client=apache"),
               Catch::Contains("'apache' is not one of pooled, per-call, curl"));

    auto twice = check_arms({{"a", "loop", {}}, {"a", "pool", {}}});
    REQUIRE_FALSE(twice);
    CHECK_THAT(twice.err().message, Catch::Contains("'a' is used twice"));
    CHECK(check_arms({{"a", "loop", {}}, {"b", "loop", {}}}));  // an A/A control
    auto models = arms_of_models({"pool", "loop"});
    REQUIRE(models);
    CHECK((*models)[1].name == "loop");
    REQUIRE_FALSE(arms_of_models({"pool", "tomcat"}));
}

TEST_CASE("the interleaved order is a permutation per round, fixed by the seed", "[load][arms]")
{
    std::set<std::size_t> firsts;
    for (unsigned round = 1; round <= 30; ++round) {
        auto order = round_order(3, 42, round);
        CHECK(order == round_order(3, 42, round));  // reproducible
        auto sorted = order;
        std::sort(sorted.begin(), sorted.end());
        CHECK(sorted == std::vector<std::size_t>{0, 1, 2});
        firsts.insert(order.front());
    }
    CHECK(firsts.size() == 3);  // every arm leads some round
    // Another seed gives another sequence of rounds.
    bool differs = false;
    for (unsigned round = 1; round <= 10; ++round)
        differs = differs || round_order(3, 42, round) != round_order(3, 43, round);
    CHECK(differs);
    CHECK(round_order(1, 7, 1) == std::vector<std::size_t>{0});
    CHECK(parse_trial_order("blocked") == trial_order::blocked);
    CHECK_FALSE(parse_trial_order("random"));
}

namespace {

trial_result synthetic_trial(unsigned index, double cpu_seconds, std::uint64_t unsent, std::int64_t lag_micros)
{
    trial_result t;
    t.index = index;
    t.measured.elapsed = 10s;
    t.measured.foreground.wall = 10s;
    t.measured.foreground.count.ok = 1000 * index;
    t.measured.foreground.count.unsent = unsent;
    t.measured.loadgen_cpu_seconds = cpu_seconds;
    if (lag_micros > 0)
        for (int i = 0; i < 100; ++i)
            t.measured.foreground.schedule_lag.record(lag_micros);
    return t;
}

}  // namespace

TEST_CASE("a trial where the generator was the bottleneck is marked and left out of the summary", "[load][arms]")
{
    // 9.5 CPU-seconds over 10 s on one thread: 95 % of the one core it can use.
    auto busy = synthetic_trial(1, 9.5, 0, 0);
    CHECK_THAT(generator_bound_reason(busy, 1, 2), Catch::Contains("CPU 95% of 1 core"));
    // The same with 2 threads on 2 CPUs is 47.5 % of what it may use: not bound.
    CHECK(generator_bound_reason(busy, 2, 2).empty());
    // Two threads but pinned to one CPU: bound again.
    CHECK_FALSE(generator_bound_reason(busy, 2, 1).empty());
    auto late = synthetic_trial(2, 1.0, 40, 25'000);
    auto why = generator_bound_reason(late, 1, 1);
    CHECK_THAT(why, Catch::Contains("send timer p99") && Catch::Contains("40 unsent requests are the generator's"));
    // A peak that saturates the generator for 3 seconds marks the trial although the average is low...
    auto peak = synthetic_trial(4, 3.5, 0, 0);
    peak.measured.loadgen_cpu_percent = {10, 20, 95, 99, 92, 30, 10, 10, 10, 10};
    CHECK_THAT(generator_bound_reason(peak, 1, 1), Catch::Contains("for 3 s (seconds 3-5)"));
    // ...two such seconds, or three that are not consecutive, do not.
    peak.measured.loadgen_cpu_percent = {95, 20, 95, 99, 30, 92, 10, 10, 10, 10};
    CHECK(generator_bound_reason(peak, 1, 1).empty());
    // Unsent requests alone are the server's (it fell behind): not generator-bound.
    CHECK(generator_bound_reason(synthetic_trial(3, 1.0, 500, 200), 1, 1).empty());

    run_record r;
    r.scenario_used.name = "s";
    r.server.model = "loop";
    r.trials = {synthetic_trial(1, 1, 0, 0), synthetic_trial(2, 1, 0, 0), synthetic_trial(3, 1, 0, 0)};
    r.trials[2].generator_bound = true;
    summarize_trials(r);
    CHECK(r.generator_bound_trials() == 1);
    auto ok = std::find_if(r.summary.begin(), r.summary.end(), [](const auto& m) { return m.name == "requests_ok"; });
    REQUIRE(ok != r.summary.end());
    CHECK(ok->spread.median == Approx(1500));  // trials 1 and 2 only
    CHECK(ok->spread.max == Approx(2000));
    CHECK_THAT(format_summary_line(r), Catch::Contains("GENERATOR-BOUND(1 of 3 trials, left out)"));

    execbench::test_support::temp_dir d("execbench-arms-test");
    auto paths = output_paths_for(d.path / "x.csv");
    REQUIRE(write_results(r, paths));
    auto trials = read_csv(paths.trials);
    REQUIRE(trials);
    auto col = trials->column("generator_bound");
    REQUIRE(col >= 0);
    CHECK(trials->rows[2][std::size_t(col)] == "1");
    CHECK(trials->rows[0][std::size_t(col)] == "0");
    auto summary = read_csv(paths.summary);
    REQUIRE(summary);
    CHECK(summary->rows[0][std::size_t(summary->column("generator_bound_trials"))] == "1");
}

TEST_CASE("a run that left requests unsent is behind, not ok", "[load][arms]")
{
    run_record r;
    r.server.model = "pool";
    r.trials = {synthetic_trial(1, 1, 0, 0)};
    CHECK(status_of(r) == run_status::ok);
    r.trials.push_back(synthetic_trial(2, 1, 55'400, 0));
    summarize_trials(r);
    CHECK(status_of(r) == run_status::behind);
    CHECK_THAT(format_summary_line(r), Catch::Contains("BEHIND(unsent)"));
    r.trials[0].measured.foreground.count.errors[0] = 3;
    CHECK(status_of(r) == run_status::errors);  // errors weigh more than unsent
    // Every trial generator-bound: the figures are the generator's, whatever else the trials saw.
    for (auto& t : r.trials)
        t.generator_bound = true;
    CHECK(status_of(r) == run_status::generator_bound);
    r.trials[1].generator_bound = false;
    CHECK(status_of(r) == run_status::errors);
    CHECK(parse_run_status("generator-bound") == run_status::generator_bound);
    // A server that answered every request with a 4xx (a TLS-only peer asked in cleartext) is the story, not the
    // generator busy reconnecting after each refusal; one failure of another kind, or one success, and it is not.
    auto refuse_all = [&](std::uint64_t other) {
        for (auto& t : r.trials) {
            t.generator_bound = true;
            auto& c = t.measured.foreground.count;
            c = {};
            c.errors[std::size_t(error_class::http_4xx)] = 500;
            c.errors[std::size_t(error_class::request_timeout)] = other;
        }
    };
    refuse_all(0);
    CHECK(r.refused_every_request());
    CHECK(status_of(r) == run_status::errors);
    refuse_all(1);
    CHECK_FALSE(r.refused_every_request());
    CHECK(status_of(r) == run_status::generator_bound);
    refuse_all(0);
    r.trials[0].measured.foreground.count.ok = 1;
    CHECK(status_of(r) == run_status::generator_bound);
    // Stopped early (Ctrl-C): the status says so, not `errors`, whatever the trials kept saw (user review
    // 2026-12-03, item 11).
    r.partial = true;
    CHECK(status_of(r) == run_status::stopped);
    CHECK(to_string(run_status::stopped) == "stopped");
    CHECK(parse_run_status("stopped") == run_status::stopped);
    r.partial = false;
    r.trials.clear();
    CHECK(status_of(r) == run_status::failed);
    CHECK(to_string(run_status::behind) == "behind");
    CHECK(parse_run_status("behind") == run_status::behind);
}

TEST_CASE("a cgroup's cpu.max grants whole CPUs, rounded up, or none without a quota", "[core][cpus]")
{
    // The user review of 2026-12-03, item 7: in a pod limited to 2 CPUs, defaults followed the node's cores.
    CHECK(execbench::cpus_of_quota("200000 100000") == 2u);
    CHECK(execbench::cpus_of_quota("200000 100000\n") == 2u);
    CHECK(execbench::cpus_of_quota("150000 100000") == 2u);
    CHECK(execbench::cpus_of_quota("100000 100000") == 1u);
    CHECK(execbench::cpus_of_quota("50000 100000") == 1u);
    CHECK(execbench::cpus_of_quota("3200000 100000") == 32u);
    CHECK(execbench::cpus_of_quota("400000 200000") == 2u);
    for (const char* none :
         {"max 100000", "max", "", "200000", "0 100000", "200000 0", "two 100000", "-1 100000", "200000 100000 7"})
        CHECK_FALSE(execbench::cpus_of_quota(none));
}

TEST_CASE("CPU lists parse as taskset writes them, and the default plan splits server from generator", "[core][cpus]")
{
    using execbench::cpu_list;
    CHECK(*execbench::parse_cpu_list("0") == cpu_list{0});
    CHECK(*execbench::parse_cpu_list("0-3") == cpu_list{0, 1, 2, 3});
    CHECK(*execbench::parse_cpu_list("2,0,2") == cpu_list{0, 2});
    CHECK(execbench::format_cpu_list({0, 1, 2, 5, 7, 8}) == "0-2,5,7-8");
    CHECK(execbench::format_cpu_list({}).empty());
    for (const char* bad : {"", "a", "3-1", "1,,2", "-1", "0-", "99999"})
        CHECK_FALSE(execbench::parse_cpu_list(bad));
    CHECK_THAT(execbench::parse_cpu_list("3-1").err().message, Catch::Contains("'3-1'"));

    auto one = execbench::default_cpu_plan({0});
    CHECK(one.server.empty());
    CHECK(one.load.empty());
    auto two = execbench::default_cpu_plan({0, 1});
    CHECK(two.server == cpu_list{0});
    CHECK(two.load == cpu_list{1});
    CHECK(two.downstream == cpu_list{1});
    auto four = execbench::default_cpu_plan({0, 1, 2, 3});
    CHECK(four.server == cpu_list{0, 1});
    CHECK(four.load == cpu_list{2, 3});
    CHECK(execbench::usable_cpu_count() ==
          std::min<std::size_t>(execbench::allowed_cpus().size(),
                                execbench::cgroup_cpu_quota().value_or(execbench::allowed_cpus().size())));
    CHECK(execbench::allowed_cpus_of(::getpid()) == execbench::format_cpu_list(execbench::allowed_cpus()));
    CHECK(execbench::allowed_cpus_of(-1).empty());
}

TEST_CASE("a sampled server that used no CPU for thousands of answers is named, with --server-pid", "[load][arms]")
{
    // The user review's nginx: its idle master, sampled alone, read 0 % CPU while its worker served.
    run_record r;
    r.server.pid = 4242;
    for (unsigned i = 1; i <= 3; ++i) {
        trial_result t;
        t.index = i;
        t.measured.foreground.count.ok = 1000;
        t.server = execbench::stats::process_summary{};
        r.trials.push_back(t);
    }
    auto warning = idle_server_warning(r);
    REQUIRE(warning);
    CHECK_THAT(*warning, Catch::Contains("pid 4242"));
    CHECK_THAT(*warning, Catch::Contains("3000 requests"));
    CHECK_THAT(*warning, Catch::Contains("--server-pid"));
    // One busy trial is a server that served; a few hundred answers may all fall between clock ticks.
    r.trials[1].server->cpu_percent_avg = 3;
    CHECK_FALSE(idle_server_warning(r));
    r.trials[1].server->cpu_percent_avg = 0;
    for (auto& t : r.trials)
        t.measured.foreground.count.ok = 100;
    CHECK_FALSE(idle_server_warning(r));
    // No pid, no sampled process to blame.
    r.server.pid.reset();
    CHECK_FALSE(idle_server_warning(r));
}
