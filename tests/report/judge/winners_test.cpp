#include "execbench/report/judge/winners.hpp"
#include "execbench/report/word/verdict_text.hpp"
#include "execbench/report/word/words.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

using namespace execbench::report;

namespace {

/// One trial row: `column` = value, plus a wall time long enough for the server figures and per-second buckets, and
/// the server samples bench-load's 10 Hz sampler takes in it (one at the start, one per 100 ms, one at the end).
trial_row trial(const std::string& column, double value, double wall_millis = 20'000)
{
    trial_row t{{"wall_millis", wall_millis},
                {"requests_error", 0},
                {"requests_unsent", 0},
                {"server_samples", 2 + std::floor(wall_millis / 100)}};
    t[column] = value;
    return t;
}

arm_trials arm(const std::string& column, std::vector<double> values, double wall_millis = 20'000)
{
    arm_trials a;
    for (auto v : values)
        a.trials.push_back(trial(column, v, wall_millis));
    return a;
}

const metric_rule& rule_for(const std::string& column)
{
    const auto& rules = winner_metrics();
    return *std::find_if(rules.begin(), rules.end(), [&](const auto& r) { return r.column == column; });
}

const std::vector<std::string> three{"pool", "fiber", "loop"};

}  // namespace

TEST_CASE("an arm wins a cell only when its interval against every other arm lies clear of 1", "[report][winners]")
{
    const auto& p99 = rule_for("latency_millis_p99");
    std::map<std::string, arm_trials> arms{
        {"pool", arm(p99.column, {300, 290, 310, 305, 295})},
        {"fiber", arm(p99.column, {150, 148, 152, 149, 151})},
        {"loop", arm(p99.column, {151, 147, 153, 150, 149})},
    };
    auto c = judge(arms, three, p99);
    // fiber and loop are equal within their spread: nobody ranks above both others, but both rank above pool.
    CHECK(c.kind == verdict::shared);
    CHECK(c.leaders == std::vector<std::string>{"fiber", "loop"});
    CHECK(cell_text(c) == "fiber = loop");
    REQUIRE(c.pairs.size() == 3);
    CHECK(c.pairs[0].better == "fiber");  // pool vs fiber
    CHECK(c.pairs[1].better == "loop");   // pool vs loop
    CHECK(c.pairs[2].better.empty());     // fiber vs loop
    CHECK(describe(c.pairs[2], p99).rfind("tie: fiber / loop", 0) == 0);

    arms["loop"] = arm(p99.column, {100, 99, 101, 98, 102});
    c = judge(arms, three, p99);
    CHECK(c.kind == verdict::winner);
    CHECK(c.winner == "loop");
    CHECK(cell_text(c) == "loop");
    // Said as hyperfine says it, in the winner's favour: pool / loop = 3×.
    CHECK(describe(c.pairs[1], p99) == "loop: 3.00× (2.89–3.11) lower latency p99 than pool");
}

TEST_CASE("a lead is shared only when the leaders beat every other arm, otherwise the cell is a tie",
          "[report][winners]")
{
    const auto& p99 = rule_for("latency_millis_p99");
    // All three equal within their spread.
    std::map<std::string, arm_trials> arms{
        {"pool", arm(p99.column, {150, 149, 151, 148, 152})},
        {"fiber", arm(p99.column, {150, 148, 152, 149, 151})},
        {"loop", arm(p99.column, {151, 147, 153, 150, 149})},
    };
    auto c = judge(arms, three, p99);
    CHECK(c.kind == verdict::tie);
    CHECK(c.leaders.empty());
    CHECK(cell_text(c) == "tie");
    CHECK(verdict_line(c, p99).rfind("tie: ", 0) == 0);

    // Not transitive: pool ties fiber, fiber ties loop, pool beats loop. fiber beats nobody, so pool and fiber do not
    // lead together.
    arms["pool"] = arm(p99.column, {100, 101, 99, 100, 100});
    arms["fiber"] = arm(p99.column, {100, 150, 125, 110, 140});
    arms["loop"] = arm(p99.column, {150, 149, 151, 150, 150});
    c = judge(arms, three, p99);
    CHECK(c.kind == verdict::tie);
}

TEST_CASE("a cell's verdict line names the winner's lead over the runner-up, or the pair that ties",
          "[report][winners]")
{
    const auto& p99 = rule_for("latency_millis_p99");
    std::map<std::string, arm_trials> arms{
        {"pool", arm(p99.column, {300, 290, 310, 305, 295})},
        {"fiber", arm(p99.column, {150, 148, 152, 149, 151})},
        {"loop", arm(p99.column, {151, 147, 153, 150, 149})},
    };
    // fiber and loop are ahead of the pool but cannot be told apart: they share the lead, stated against the pool.
    auto c = judge(arms, three, p99);
    REQUIRE(c.kind == verdict::shared);
    CHECK(verdict_line(c, p99).rfind("fiber = loop: ", 0) == 0);
    CHECK_THAT(verdict_line(c, p99), Catch::EndsWith(") lower than pool"));

    // loop wins; fiber (1.5× behind) is the runner-up, not the pool (3× behind).
    arms["loop"] = arm(p99.column, {100, 99, 101, 98, 102});
    c = judge(arms, three, p99);
    REQUIRE(c.kind == verdict::winner);
    REQUIRE(deciding_pair(c, p99) != nullptr);
    CHECK(verdict_line(c, p99).rfind("loop: 1.50× (", 0) == 0);
    CHECK_THAT(verdict_line(c, p99), Catch::EndsWith(") lower than fiber"));

    // Too few trials: no pair, the reason instead.
    arms["loop"].trials.resize(2);
    c = judge(arms, three, p99);
    CHECK(deciding_pair(c, p99) == nullptr);
    CHECK(verdict_line(c, p99) == "too few trials");
}

TEST_CASE("higher-is-better metrics rank the larger median first", "[report][winners]")
{
    const auto& rps = rule_for("requests_per_second");
    std::map<std::string, arm_trials> arms{{"pool", arm(rps.column, {1000, 990, 1010})},
                                           {"loop", arm(rps.column, {2000, 1980, 2020})}};
    auto c = judge(arms, three, rps);
    CHECK(c.winner == "loop");
    CHECK(describe(c.pairs[0], rps).rfind("loop: 2.00× (", 0) == 0);
}

TEST_CASE("fewer than three usable trials give no verdict", "[report][winners]")
{
    const auto& p99 = rule_for("latency_millis_p99");
    std::map<std::string, arm_trials> arms{{"pool", arm(p99.column, {300, 310})},
                                           {"loop", arm(p99.column, {100, 101, 99})}};
    CHECK(judge(arms, three, p99).kind == verdict::too_few_trials);
    CHECK(judge(arms, three, p99).pairs.empty());

    // Generator-bound trials are kept in the results but do not count.
    arms["pool"] = arm(p99.column, {300, 310, 305, 290});
    arms["pool"].trials[0]["generator_bound"] = 1;
    arms["pool"].trials[1]["generator_bound"] = 1;
    CHECK(judge(arms, three, p99).kind == verdict::too_few_trials);
    arms["pool"].trials[1]["generator_bound"] = 0;
    CHECK(judge(arms, three, p99).kind == verdict::winner);
}

TEST_CASE("server figures from fewer than three samples are not sampled", "[report][winners]")
{
    const auto& cpu = rule_for(std::string(cpu_seconds_per_1k_requests));
    // A 70 ms burst: 2 samples (start and stop of the 10 Hz sampler).
    std::map<std::string, arm_trials> arms{{"pool", arm(cpu.column, {90, 95, 92}, 70)},
                                           {"loop", arm(cpu.column, {20, 22, 21}, 70)}};
    CHECK(server_samples(arms["pool"].trials[0]) == 2);
    CHECK(judge(arms, three, cpu).kind == verdict::not_sampled);
    // A 900 ms burst: 11 samples, enough.
    arms = {{"pool", arm(cpu.column, {90, 95, 92}, 900)}, {"loop", arm(cpu.column, {20, 22, 21}, 900)}};
    CHECK(judge(arms, three, cpu).winner == "loop");
    // One trial with too few is enough.
    arms["loop"].trials[2]["server_samples"] = 2;
    CHECK(judge(arms, three, cpu).kind == verdict::not_sampled);
    // Client figures of the same short burst are still ranked.
    const auto& p50 = rule_for("latency_millis_p50");
    arms = {{"pool", arm(p50.column, {9, 9.5, 9.2}, 70)}, {"loop", arm(p50.column, {2, 2.2, 2.1}, 70)}};
    CHECK(judge(arms, three, p50).winner == "loop");
}

TEST_CASE("sockets and one-bucket per-second figures are not ranked", "[report][winners]")
{
    const auto& sockets = rule_for("server_sockets_max");
    std::map<std::string, arm_trials> arms{{"pool", arm(sockets.column, {600, 600, 600})},
                                           {"loop", arm(sockets.column, {10, 10, 10})}};
    CHECK(judge(arms, three, sockets).kind == verdict::not_ranked);
    const auto& per_second = rule_for("per_second_requests_p50");
    arms = {{"pool", arm(per_second.column, {600, 610, 590}, 900)},
            {"loop", arm(per_second.column, {100, 101, 99}, 900)}};
    CHECK(judge(arms, three, per_second).kind == verdict::not_ranked);
    arms = {{"pool", arm(per_second.column, {600, 610, 590})}, {"loop", arm(per_second.column, {100, 101, 99})}};
    CHECK(judge(arms, three, per_second).winner == "pool");
}

TEST_CASE("an arm with errors or unsent requests ranks below every arm without", "[report][winners]")
{
    const auto& cpu = rule_for(std::string(cpu_seconds_per_1k_requests));
    std::map<std::string, arm_trials> arms{{"pool", arm(cpu.column, {10, 11, 12})},
                                           {"loop", arm(cpu.column, {80, 82, 81})}};
    CHECK(judge(arms, three, cpu).winner == "pool");
    // The pool sent only part of its requests in one trial: its low CPU is doing less work, not winning.
    arms["pool"].trials[1]["requests_unsent"] = 55'400;
    auto c = judge(arms, three, cpu);
    CHECK(c.winner == "loop");
    CHECK(c.pairs[0].by_failures);
    CHECK(describe(c.pairs[0], cpu)
              .rfind("loop above pool (pool: 55,400 unsent in 1 of 3 trials, over 0.1 % of its "
                     "requests; pool / loop",
                     0) == 0);
    CHECK(verdict_line(c, cpu) == "loop (failures over 0.1 % of requests: pool 55,400 unsent in 1 of 3 trials)");
    // Errors count exactly the same.
    arms["pool"].trials[1]["requests_unsent"] = 0;
    arms["pool"].trials[2]["requests_error"] = 1;
    CHECK(judge(arms, three, cpu).winner == "loop");
    // Both failed: the metric decides among them again.
    arms["loop"].trials[0]["requests_error"] = 3;
    CHECK(judge(arms, three, cpu).winner == "pool");
}

TEST_CASE("failures within 0.1 % of a trial's requests do not outrank the measurements", "[report][winners]")
{
    const auto& p99 = rule_for("latency_millis_p99");
    std::map<std::string, arm_trials> arms{{"pool", arm(p99.column, {4.3, 4.4, 4.3})},
                                           {"fiber", arm(p99.column, {3.6, 3.5, 3.55})},
                                           {"loop", arm(p99.column, {3.3, 3.31, 3.32})}};
    for (auto& [name, a] : arms)
        for (auto& t : a.trials)
            t["requests_total"] = 30'000;
    // The case: one unsent request in 30,000 put loop last on every metric.
    arms["loop"].trials[1]["requests_unsent"] = 1;
    auto c = judge(arms, three, p99);
    CHECK(c.winner == "loop");
    CHECK_FALSE(c.by_failures());
    CHECK(failure_text(c.failures.at("loop")) == "≤1 unsent");
    // 974 connect errors in one trial of three are beyond it, and the verdict names every arm they demoted.
    arms["loop"].trials[1]["requests_error"] = 974;
    arms["pool"].trials[0]["requests_error"] = 40;
    arms["pool"].trials[2]["requests_error"] = 45;
    c = judge(arms, three, p99);
    CHECK(c.winner == "fiber");
    CHECK(c.by_failures());
    CHECK(c.demoted() == std::vector<std::string>{"pool", "loop"});
    CHECK(verdict_line(c, p99) == "fiber (failures over 0.1 % of requests: pool up to 45 errors in 2 of 3 trials, "
                                  "loop 974 errors + 1 unsent in 1 of 3 trials)");
    scenario_figures f;
    f.scenario = "spike";
    f.arms = arms;
    auto t = rank({f}, three);
    CHECK(t.decided_by_failures == t.decided);
    CHECK(t.wins_by_failures["fiber"] == t.wins["fiber"]);
}

TEST_CASE("CPU ranks per request only, CPU max, RSS and threads never rank, switches only at equal work",
          "[report][winners]")
{
    // The review's downstream case: the pool at 13 % CPU serves a fifth of the loop's requests at 60 %.
    auto with_work = [](double cpu_percent, double ok) {
        arm_trials a;
        for (double k : {1.0, 1.01, 0.99}) {
            trial_row t{{"wall_millis", 20'000},
                        {"requests_error", 0},
                        {"requests_unsent", 0},
                        {"requests_total", ok * k},
                        {"requests_ok", ok * k},
                        {"server_samples", 200},
                        {"server_cpu_percent_avg", cpu_percent * k},
                        {"server_voluntary_switches", ok * k}};
            add_derived_metrics(t);
            a.trials.push_back(t);
        }
        return a;
    };
    std::map<std::string, arm_trials> arms{{"pool", with_work(13, 40'000)}, {"loop", with_work(60, 340'000)}};
    // 13 % of 20 s over 40,000 requests: 0.065 CPU-seconds per 1,000.
    CHECK(arms["pool"].trials[0].at(std::string(cpu_seconds_per_1k_requests)) == Approx(0.065));
    auto cpu = judge(arms, three, rule_for(std::string(cpu_seconds_per_1k_requests)));
    CHECK(cpu.winner == "loop");
    CHECK(judge(arms, three, rule_for("server_voluntary_switches")).kind == verdict::unequal_work);
    CHECK(to_string(verdict::unequal_work) == "unequal work");
    // The same work: switches are ranked again.
    arms["loop"] = with_work(60, 40'000);
    for (auto& t : arms["loop"].trials)
        t["server_voluntary_switches"] = 10'000;
    CHECK(judge(arms, three, rule_for("server_voluntary_switches")).winner == "loop");
    // io-600: the pool's CPU max was lowest because it took three times as long; no such figure decides a cell.
    for (const char* never :
         {"server_cpu_percent_max", "server_rss_mb_avg", "server_rss_mb_max", "server_threads_max"}) {
        INFO(never);
        CHECK_THROWS_AS(winner_metric(never), std::out_of_range);
    }
}

TEST_CASE("the share counts decided cells only, and a one-arm suite has no winners", "[report][winners]")
{
    scenario_figures a;
    a.scenario = "a";
    scenario_figures b;
    b.scenario = "b";
    // In a, fiber is clearly best at everything; in b, the two are the same run.
    for (double k : {1.0, 1.01, 0.99}) {
        trial_row pool{{"wall_millis", 20'000}, {"requests_unsent", 0}, {"server_samples", 202}};
        auto fiber = pool;
        for (const auto& r : winner_metrics()) {
            pool[r.column] = 100 * k;
            fiber[r.column] = (r.direction == better::higher ? 300 : 30) * k;
        }
        a.arms["pool"].trials.push_back(pool);
        a.arms["fiber"].trials.push_back(fiber);
        b.arms["pool"].trials.push_back(pool);
        b.arms["fiber"].trials.push_back(pool);
    }
    scenario_figures alone;
    alone.scenario = "alone";
    alone.arms["pool"] = arm("latency_millis_p99", {1, 2, 3});
    auto t = rank({a, b, alone}, {"pool", "fiber"});
    // In a, fiber did three times the work: the figures that grow with it are "unequal work", not fiber's wins.
    auto equal_work =
        static_cast<unsigned>(std::count_if(winner_metrics().begin(), winner_metrics().end(), [](const auto& r) {
            return r.source == metric_source::server_equal_work;
        }));
    auto ranked =
        static_cast<unsigned>(std::count_if(winner_metrics().begin(), winner_metrics().end(),
                                            [](const auto& r) { return r.source != metric_source::client_set; }));
    CHECK(t.scenarios == std::vector<std::string>{"a", "b"});
    CHECK(t.unequal_work == equal_work);
    CHECK(t.decided == ranked - equal_work);
    CHECK(t.wins["fiber"] == ranked - equal_work);
    CHECK(t.ties == ranked);
    CHECK(t.not_ranked == 2);
    CHECK(t.share("fiber") == Approx(1.0));
    CHECK(t.share("pool") == Approx(0.0));
    CHECK(t.ranking() == std::vector<std::string>{"fiber", "pool"});

    auto one = rank({alone}, {"pool"});
    CHECK(one.single_arm);
    CHECK(one.decided == 0);
}

TEST_CASE("a consistent difference smaller than the noise floor is a tie", "[report][winners]")
{
    const auto& rps = rule_for("requests_per_second");
    // loop is ahead of fiber in every trial, so the interval excludes 1, but by about 1 %: inside the 2 % that
    // identical arms differ by on this machine (the A/A control).
    std::map<std::string, arm_trials> arms{
        {"fiber", arm(rps.column, {1000, 1001, 1002, 1000, 1001})},
        {"loop", arm(rps.column, {1010, 1011, 1012, 1010, 1011})},
    };
    const std::vector<std::string> two{"fiber", "loop"};
    auto c = judge(arms, two, rps);
    REQUIRE(c.pairs.size() == 1);
    CHECK(c.pairs[0].ratio.clears(0));
    CHECK(c.kind == verdict::tie);
    // Five per cent ahead in every trial clears the margin.
    arms["loop"] = arm(rps.column, {1050, 1051, 1052, 1050, 1051});
    c = judge(arms, two, rps);
    CHECK(c.kind == verdict::winner);
    CHECK(c.winner == "loop");
}

TEST_CASE("an arm that answered nothing takes part in a per-request cell, ranked below by its failures",
          "[report][winners]")
{
    // The tls step's cleartext row: nginx's TLS port refuses cleartext, so it has no CPU per request, yet the models'
    // figures are measured and their verdict must not vanish with it.
    const auto cpu = std::string(cpu_seconds_per_1k_requests);
    auto served = [&](double per_1k) {
        arm_trials a;
        for (double k : {1.0, 1.01, 0.99}) {
            trial_row t{{"wall_millis", 20'000}, {"requests_error", 0},     {"requests_unsent", 0},
                        {"requests_ok", 400'000}, {"server_samples", 202}, {cpu, per_1k * k}};
            a.trials.push_back(t);
        }
        return a;
    };
    arm_trials refused;
    for (int i = 0; i < 3; ++i)
        refused.trials.push_back(trial_row{{"wall_millis", 20'000},
                                           {"requests_error", 400'000},
                                           {"requests_unsent", 0},
                                           {"requests_ok", 0},
                                           {"server_samples", 202}});
    scenario_figures row;
    row.scenario = "tls-hot-path-20k-cleartext";
    row.arms = {{"pool", served(0.026)}, {"fiber", served(0.012)}, {"nginx", refused}};
    auto t = rank({row}, {"pool", "fiber", "nginx"});
    REQUIRE(t.cells["tls-hot-path-20k-cleartext"].contains(cpu));
    const auto& c = t.cells["tls-hot-path-20k-cleartext"][cpu];
    CHECK(c.kind == verdict::winner);
    CHECK(c.winner == "fiber");
    // Its pair with the refused arm says why it ranks below, with no ratio against a figure that does not exist.
    auto refused_pair = std::find_if(c.pairs.begin(), c.pairs.end(),
                                     [](const pair_verdict& p) { return p.first == "fiber" && p.second == "nginx"; });
    REQUIRE(refused_pair != c.pairs.end());
    CHECK_FALSE(refused_pair->measured);
    CHECK_THAT(describe(*refused_pair, rule_for(cpu)),
               Catch::StartsWith("fiber above nginx") && Catch::Contains("no ratio: fiber or nginx is 0 or has no") &&
                   !Catch::Contains("×"));

    // A figure no arm has (an earlier schema did not record it) is still no cell at all.
    for (auto& [name, a] : row.arms)
        for (auto& tr : a.trials)
            tr.erase(cpu);
    CHECK_FALSE(rank({row}, {"pool", "fiber", "nginx"}).cells["tls-hot-path-20k-cleartext"].contains(cpu));
}
