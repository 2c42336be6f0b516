#include "execbench/report/suite_page/parity_notes.hpp"

#include "execbench/report/page/markdown.hpp"

#include <catch2/catch.hpp>

using namespace execbench::report;

namespace {

execbench::load::run_context context_of(const std::string& arm, const std::string& model, unsigned threads)
{
    return *execbench::load::parse_context(
        R"({"run_id":"r-)" + arm + R"(","scenario":{"name":"io"},"arm":{"name":")" + arm + R"(","model":")" + model +
        R"(","options":{}},"order":{"kind":"interleaved","seed":9,"round":2},"affinity":{"server":"0","load":"1","downstream":""},"server":{"health":{"status":"up","model":")" +
        model + R"(","threads":)" + std::to_string(threads) +
        R"(,"queue":100,"inFlight":3,"downstream":"http://127.0.0.1:4)" + std::to_string(threads) + R"("}}})");
}

}  // namespace

TEST_CASE("the parity audit lists the server settings that differ between arms", "[report][parity]")
{
    suite_data s;
    s.contexts = {context_of("pool", "pool", 200), context_of("loop", "loop", 2)};
    auto notes = to_markdown(arm_notes(s, "io"));
    CHECK_THAT(notes, Catch::Contains("- `threads`: loop 2, pool 200"));
    CHECK_THAT(notes, !Catch::Contains("queue") && !Catch::Contains("inFlight") && !Catch::Contains("downstream"));
    CHECK(to_markdown(arm_notes(s, "other")).empty());
    CHECK(order_text(s) == "interleaved, seed 9; CPUs: server 0, generator 1, downstream any");

    s.contexts = {context_of("a", "loop", 2), context_of("b", "loop", 2)};
    CHECK_THAT(to_markdown(arm_notes(s, "io")), Catch::Contains("the same for every arm"));

    s.runs["io"]["b"].take_summary({{"generator_bound_trials", "1"}, {"trials", "5"}});
    CHECK_THAT(to_markdown(arm_notes(s, "io")),
               Catch::Contains("**b**: 1 of 5 trial(s) generator-bound") && Catch::Contains("left out of the medians"));

    // Results recorded before arms: nothing to say, so old pages stay as they were.
    s.contexts = {*execbench::load::parse_context(
        R"({"run_id":"x","scenario":{"name":"io"},"server":{"health":{"threads":2}}})")};
    s.runs.clear();
    CHECK(to_markdown(arm_notes(s, "io")).empty());
    CHECK(order_text(s).empty());
}
