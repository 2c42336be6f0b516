// A ledger message's figures: what bench-suite writes, the reader reads back as figures; anything else stays a note.
#include "execbench/load/metrics/metrics.hpp"
#include "execbench/load/results/ledger.hpp"

#include <catch2/catch.hpp>

using namespace execbench::load;

TEST_CASE("a ledger message's figures read back as they were written", "[load][results][ledger]")
{
    run_record r;
    r.summary = {{std::string(metric::requests_unsent), {.median = 150501, .min = 150000, .max = 150600}},
                 {"errors_reset", {.median = 2, .min = 2, .max = 2}},
                 {"errors_timeout", {.median = 0, .min = 0, .max = 0}},  // none in any trial: not listed
                 {std::string(metric::requests_per_second), {.median = 900, .min = 800, .max = 1000}}};
    auto figures = ledger_figures(r);
    REQUIRE(figures.size() == 2);
    auto text = format_figures(figures) + "; round 2: server exited, code 1";
    CHECK(text == "requests_unsent=150501 (max 150600), errors_reset=2; round 2: server exited, code 1");

    auto parts = parse_message(text);
    REQUIRE(parts.size() == 4);
    REQUIRE(parts[0].figure);
    CHECK(parts[0].figure->name == "requests_unsent");
    CHECK(parts[0].figure->median == 150501);
    CHECK(parts[0].figure->max == std::optional<double>(150600));
    CHECK(parts[0].separator == ", ");
    REQUIRE(parts[1].figure);
    CHECK(parts[1].figure->name == "errors_reset");
    CHECK_FALSE(parts[1].figure->max);
    CHECK(parts[1].separator == "; ");
    // A note is kept as written, split where it holds a separator.
    CHECK_FALSE(parts[2].figure);
    CHECK(parts[2].text == "round 2: server exited");
    CHECK(parts[3].text == "code 1");
    CHECK(parts[3].separator.empty());
}

TEST_CASE("only what format_figures writes reads as a figure", "[load][results][ledger]")
{
    for (const char* note : {"errors_=2", "errors_Reset=2", "requests_ok=2", "requests_unsent=", "requests_unsent=2x",
                             "requests_unsent=2 (max 3", "requests_unsent=2 (max )", "errors_reset=-1",
                             "3 of 5 trial(s) generator-bound (left out of the summary)"}) {
        CAPTURE(note);
        auto parts = parse_message(note);
        REQUIRE(parts.size() == 1);
        CHECK_FALSE(parts[0].figure);
        CHECK(parts[0].text == note);
    }
    CHECK(parse_message("").size() == 1);
}
