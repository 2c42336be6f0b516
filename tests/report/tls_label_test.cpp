#include "execbench/report/report.hpp"
#include "execbench/report/suite_page/suite_page.hpp"

#include "support/fake_suite.hpp"
#include "support/temp_dir.hpp"

#include <catch2/catch.hpp>

#include <filesystem>

using namespace execbench;
using namespace execbench::report;

namespace {

/// A suite of two scenarios run by pool and loop: `hs` over TLS with an RSA-2048 key, `plain` in cleartext.
std::filesystem::path tls_suite(const std::filesystem::path& root)
{
    const std::string summary =
        "scenario,model,run_id,trials,requests_ok,requests_error,requests_per_second,latency_millis_p99,shape,"
        "connections,tls_handshakes_full,tls_handshakes_resumed,connect_millis_p50,connect_millis_p99,tls\n"
        "hs,pool,r1,1,9000,0,900,40,open,50,9000,0,2.5,9.5,1\n"
        "hs,loop,r2,1,9100,0,910,30,open,50,9100,0,1.5,4.5,1\n"
        "plain,pool,r3,1,100,0,10,5,closed,10,,,,,0\n"
        "plain,loop,r4,1,100,0,10,4,closed,10,,,,,0\n";
    const std::string rsa = R"(,"tls":true,"tls_resume":false,"tls_key":"rsa2048")";
    using test_support::context_line;
    return test_support::written_suite(
        root, "t", {{"hs", "pool", "r1"}, {"hs", "loop", "r2"}, {"plain", "pool", "r3"}, {"plain", "loop", "r4"}},
        summary,
        context_line("r1", "hs", rsa) + context_line("r2", "hs", rsa) + context_line("r3", "plain") +
            context_line("r4", "plain"));
}

}  // namespace

TEST_CASE("a run over TLS is labelled with its key on the page, in the README cell and in the chart title",
          "[report][tls]")
{
    test_support::temp_dir d("execbench-report-tls");
    auto s = read_suite(tls_suite(d.path / "results"));
    REQUIRE(s);
    CHECK(s->runs["hs"]["pool"].tls);
    CHECK_FALSE(s->runs["plain"]["pool"].tls);
    CHECK(tls_label(s->runs["hs"]["loop"]) == "over TLS (RSA-2048)");
    CHECK(tls_label(s->runs["plain"]["loop"]).empty());

    auto md = suite_markdown(*s, report_paths{});
    CHECK_THAT(md, Catch::Contains("**Over TLS:** every figure here was measured over TLS (RSA-2048)"));
    CHECK_THAT(md, Catch::Contains("| transport | over TLS (RSA-2048) | over TLS (RSA-2048) |"));
    CHECK_THAT(md, Catch::Contains("| TLS handshakes full / resumed | 9,000 / 0 | 9,100 / 0 |"));
    CHECK_THAT(md, Catch::Contains("| hs over TLS (RSA-2048) | "));  // the winners table
    auto plain = md.substr(md.find("### plain"));
    CHECK(plain.find("Over TLS") == std::string::npos);  // a cleartext scenario gets no label
    CHECK(plain.find("| transport |") == std::string::npos);

    report_paths paths;
    paths.headline_suites = {"t"};
    auto out = build_report({*s}, paths);
    CHECK_THAT(out.readme_block,
               Catch::Contains("| [t](docs/results/t.md) | hs | 40.0 ms · 900 · *over TLS (RSA-2048)* |"));
    CHECK_THAT(out.readme_block, Catch::Contains("| plain | 5.00 ms · 10 |"));
    bool titled = false;
    for (const auto& c : out.charts)
        if (c.file.filename() == "hs.svg") {
            titled = true;
            CHECK_THAT(c.data_json, Catch::Contains(R"j("title":"t / hs over TLS (RSA-2048)")j"));
        }
    CHECK(titled);
}
