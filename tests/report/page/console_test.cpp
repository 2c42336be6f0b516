// The console renderer: what bench-suite prints at the end, from the same page model as the files.
#include "execbench/report/page/console.hpp"

#include <catch2/catch.hpp>

using namespace execbench::report;

TEST_CASE("plain_text drops the inline marks a terminal would show as noise", "[report]")
{
    CHECK(plain_text("**yes** (`p99`)") == "yes (p99)");
    CHECK(plain_text("no verdict: *too few trials* (2 * 3)") == "no verdict: too few trials (2 * 3)");
    CHECK(plain_text("[reactive](docs/results/reactive.md) io-600") == "reactive io-600");
    CHECK(plain_text("loop: 2.95×<br>tie: fiber / loop") == "loop: 2.95×; tie: fiber / loop");
    CHECK(plain_text("[unclosed") == "[unclosed");
}

TEST_CASE("a table prints in aligned columns, numbers to the right", "[report]")
{
    page p;
    p.add(table{{"scenario", "arm", "req/s"},
                {{"io-600", "pool", cell{"1,979", 1979}}, {"", "fiber", cell{"9,863", 9863}}, {"", "loop ×2"}}});
    p.add(paragraph{"*note*"});
    CHECK(to_console(p) == "scenario  arm      req/s\n"
                           "io-600    pool     1,979\n"
                           "          fiber    9,863\n"
                           "          loop ×2\n"
                           "\n"
                           "note\n");
}

TEST_CASE("bullets, charts and folded parts print as lines, comments do not print", "[report]")
{
    page inner;
    inner.add(bullets{{"a", "b"}});
    page p;
    p.add(comment{"generated"}).add(heading{2, "Winners"}).add(chart_ref{"io", "x/io.svg", "h"});
    p.add(details{"Ratios", std::move(inner)});
    CHECK(to_console(p) == "Winners\n\nio: x/io.svg\n\nRatios:\n\n- a\n- b\n");
}
