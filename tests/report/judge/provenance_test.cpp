#include "execbench/report/headline/headline.hpp"
#include "execbench/report/judge/provenance.hpp"
#include "execbench/report/word/provenance_text.hpp"

#include <catch2/catch.hpp>

using namespace execbench;
using namespace execbench::report;

namespace {

load::run_context run(std::string scenario, std::string arm, std::string run_id, std::string digest, double mhz,
                      std::string implementation = "")
{
    load::run_context c;
    c.run_id = std::move(run_id);
    c.started_at = "2026-12-06T05:00:00Z";
    c.scenario_used.name = std::move(scenario);
    c.arm.name = arm;
    c.arm.model = arm;
    c.machine.source_digest = std::move(digest);
    c.machine.build_type = "release";
    c.machine.compiler = "GNU 12.2.0";
    c.machine.cpu_model = "AMD EPYC";
    c.machine.cpu_mhz = mhz;
    c.machine.kernel = "6.1.0";
    if (!implementation.empty())
        c.server.health_json = R"({"model":")" + arm + R"(","implementation":")" + implementation + R"("})";
    return c;
}

suite_data suite(std::string name, std::vector<load::run_context> contexts)
{
    suite_data s;
    s.name = std::move(name);
    s.contexts = std::move(contexts);
    return s;
}

}  // namespace

TEST_CASE("runs of one provenance say so once, and rounds of a run count once", "[report][provenance]")
{
    auto s = suite("hot-path", {run("io", "loop", "r1", "aaaa", 2596, "i-loop"), run("io", "loop", "r1", "aaaa", 2596),
                                run("io", "coro", "r2", "aaaa", 2596, "i-coro")});
    auto p = split_provenance({&s});
    CHECK(p.one());
    CHECK(p.runs == 2);
    CHECK(p.implementations.at("coro") == "i-coro");
    CHECK(provenance_rows_text(p) ==
          "one: every run from sources aaaa (release, GNU 12.2.0), AMD EPYC at 2,596 MHz, kernel 6.1.0; model "
          "implementations coro i-coro, loop i-loop");
}

TEST_CASE("rows of another provenance are listed with how they differ", "[report][provenance]")
{
    auto a = suite("hot-path", {run("io", "loop", "r1", "aaaa", 2596, "i-loop"), run("io", "coro", "r2", "aaaa", 2596),
                                run("cpu", "loop", "r3", "aaaa", 2596)});
    auto b = suite("default", {run("x", "coro", "r4", "bbbb", 2096, "old-coro"), run("y", "coro", "r5", "aaaa", 2596)});
    auto both = split_provenance({&a, &b});
    REQUIRE_FALSE(both.one());
    CHECK(both.agreeing == 4);
    CHECK(both.differing_suites() == std::vector<std::string>{"default"});
    CHECK(provenance_rows_text(both).find("x × coro: sources bbbb, AMD EPYC at 2,096 MHz") != std::string::npos);
    CHECK(provenance_caption(both).find("default (1 run: sources bbbb, AMD EPYC at 2,096 MHz)") != std::string::npos);

    // The README must label a hand-written figure from the default suite; the generated block is left to --check's
    // staleness rule.
    std::string readme = "| io | loop | [hot-path](docs/results/hot-path.md) |\n"
                         "| x | coro | [default](docs/results/default.md) |\n"
                         "| y | coro † | [default](docs/results/default.md) |\n"
                         "<!-- results:begin -->\n[default](docs/results/default.md)\n<!-- results:end -->\n";
    auto unlabelled = unlabelled_citations(readme, {&a, &b});
    REQUIRE(unlabelled.size() == 1);
    CHECK(unlabelled[0].starts_with("README line 2 cites default without †"));
    CHECK(unlabelled_citations(readme, {&a}).empty());
}

TEST_CASE("rows copied from another folder say from where and beside which arms they did not run",
          "[report][provenance]")
{
    suite_data s;
    s.name = "peers";
    s.scenarios = {"hot-path-30k", "memory-idle"};
    s.models = {"pool", "loop", "nginx"};
    for (const auto& arm : s.models) {
        s.runs["hot-path-30k"][arm].arm = arm;
        s.runs["memory-idle"][arm].arm = arm;
    }
    s.capacity_scenarios = {"capacity-epoch-millis"};
    s.capacity["capacity-epoch-millis"]["loop"].run_id = "c1";
    CHECK(reused_rows_text(s).empty());
    s.reused["hot-path-30k"]["pool"] = {"hot-path-30k", "pool", "run", "r1", "hot-path", "full"};
    s.reused["hot-path-30k"]["loop"] = {"hot-path-30k", "loop", "run", "r2", "hot-path", "full"};
    s.reused["capacity-epoch-millis"]["loop"] = {"capacity-epoch-millis", "loop", "capacity", "c1", "capacity", ""};
    CHECK(reused_rows_text(s) ==
          "hot-path-30k × pool, loop: the hot-path folder's runs (same study), not re-run beside nginx; "
          "capacity-epoch-millis × loop: the capacity folder's runs (--reuse-from), not re-run");

    // Rows copied from runs hours before the arm beside them say how far apart they ran; within the hour, nothing.
    s.runs["hot-path-30k"]["nginx"].run_id = "2026-12-07T19:37:05Z-77aa";
    s.reused["hot-path-30k"]["pool"].run_id = "2026-12-07T09:05:10Z-1b2c";
    s.reused["hot-path-30k"]["loop"].run_id = "2026-12-07T09:06:40Z-3d4e";
    CHECK(reused_rows_text(s).find("not re-run beside nginx (11 h before them)") != std::string::npos);
    s.reused["hot-path-30k"]["pool"].run_id = "2026-12-07T19:20:10Z-1b2c";
    s.reused["hot-path-30k"]["loop"].run_id = "2026-12-07T19:21:40Z-3d4e";
    CHECK(reused_rows_text(s).find("beside nginx; ") != std::string::npos);
}
