#include "execbench/report/winners.hpp"

#include <catch2/catch.hpp>

using namespace execbench::report;

TEST_CASE("the best value wins in the metric's direction", "[report][winners]")
{
    std::vector<candidate> cs{{"pool", false, 300}, {"fiber", false, 120}, {"loop", false, 200}};
    CHECK(pick_winner(cs, better::lower) == "fiber");
    CHECK(pick_winner(cs, better::higher) == "pool");
}

TEST_CASE("a model with request errors ranks below every model without", "[report][winners]")
{
    std::vector<candidate> cs{{"pool", false, 900}, {"fiber", true, 10}, {"loop", false, 500}};
    CHECK(pick_winner(cs, better::lower) == "loop");
    CHECK(pick_winner(cs, better::higher) == "pool");
    // When every model had errors, the metric decides among them.
    std::vector<candidate> all{{"pool", true, 900}, {"fiber", true, 10}};
    CHECK(pick_winner(all, better::lower) == "fiber");
}

TEST_CASE("equal to three significant digits is undecided", "[report][winners]")
{
    CHECK(pick_winner({{"pool", false, 310.1}, {"fiber", false, 310.2}}, better::lower).empty());
    CHECK(pick_winner({{"pool", false, 0}, {"fiber", false, 0}}, better::lower).empty());
    CHECK(pick_winner({{"pool", false, 310}, {"fiber", false, 312}}, better::lower) == "pool");
    CHECK(pick_winner({}, better::lower).empty());
    // A tie between an error-free and an erroneous model is no tie.
    CHECK(pick_winner({{"pool", true, 5}, {"fiber", false, 5}}, better::lower) == "fiber");
}

TEST_CASE("sockets and requests are higher-is-better, the rest lower", "[report][winners]")
{
    for (const auto& r : winner_metrics()) {
        bool higher = r.column == "requests_ok" || r.column == "server_sockets_max" ||
                      r.column.find("per_second") != std::string::npos;
        INFO(r.column);
        CHECK((r.direction == better::higher) == higher);
    }
}

TEST_CASE("the overall ranking counts wins over scenarios and metrics", "[report][winners]")
{
    scenario_figures a;
    a.scenario = "a";
    scenario_figures b;
    b.scenario = "b";
    for (const auto& r : winner_metrics()) {
        // In a, fiber is best at everything; in b, loop is, but loop had request errors there, so pool wins.
        bool hi = r.direction == better::higher;
        a.values["pool"][r.column] = 2;
        a.values["fiber"][r.column] = hi ? 3 : 1;
        a.values["loop"][r.column] = 2;
        b.values["pool"][r.column] = hi ? 2 : 3;
        b.values["fiber"][r.column] = hi ? 1 : 4;
        b.values["loop"][r.column] = hi ? 9 : 0;
    }
    b.had_errors["loop"] = true;
    scenario_figures empty;
    empty.scenario = "not-run";
    auto t = rank({a, b, empty}, {"pool", "fiber", "loop"});
    auto n = static_cast<unsigned>(winner_metrics().size());
    CHECK(t.scenarios == std::vector<std::string>{"a", "b"});
    CHECK(t.wins["fiber"] == n);
    CHECK(t.wins["pool"] == n);
    CHECK(t.wins["loop"] == 0);
    CHECK(t.undecided == 0);
    CHECK(t.share("fiber") == Approx(0.5));
    CHECK(t.ranking() == std::vector<std::string>{"pool", "fiber", "loop"});
    CHECK(t.winner["b"]["latency_millis_p99"] == "pool");
}
