#include "execbench/report/report.hpp"
#include "execbench/report/suite_page/suite_page.hpp"

#include "support/fake_suite.hpp"
#include "support/temp_dir.hpp"

#include <catch2/catch.hpp>

#include <filesystem>

using namespace execbench;
using namespace execbench::report;

namespace {

/// A suite of three scenarios: `spike` run by pool and loop at 0.97 scale (fit to the generator's limit), `deep` by
/// pool at 0.66 scale; and `plain`, unscaled, from before the scale column existed.
std::filesystem::path scaled_suite(const std::filesystem::path& root)
{
    const std::string summary =
        "scenario,model,run_id,trials,requests_ok,requests_error,requests_per_second,latency_millis_p99,shape,"
        "connections,scale\n"
        "spike,pool,r1,1,9000,0,500,1201,ramp,19400,0.97\n"
        "spike,loop,r2,1,9100,0,510,900,ramp,19400,0.97\n"
        "deep,pool,r3,1,5000,0,300,80,open,6600,0.66\n"
        "plain,pool,r4,1,100,0,10,5,closed,10,\n"
        "mixed,pool,r5,1,100,0,10,5,closed,97,0.97\n"
        "mixed,loop,r6,1,100,0,20,4,closed,100,1\n";
    auto context = [](const char* id, const char* scenario, const std::string& scale) {
        return test_support::context_line(id, scenario, "", R"(,"scale":)" + scale);
    };
    const std::string spike_scale =
        R"j({"factor":0.97,"decided_by":"generator","note":"run at 0.97 scale: 19,400 peak users instead of )j"
        R"j(20,000 (decided by the load generator's open-file limit)"})j";
    const auto contexts =
        context("r1", "spike", spike_scale) + context("r2", "spike", spike_scale) +
        context("r3", "deep", R"({"factor":0.66,"decided_by":"server","note":"run at 0.66 scale: 6,600 req/s"})") +
        // From before scaling, and bare: no machine, execbench, load_settings or scenario either.
        R"({"run_id":"r4"})" + "\n" + context("r5", "mixed", R"({"factor":0.97,"decided_by":"--scale"})") +
        context("r6", "mixed", R"({"factor":1,"decided_by":null})");
    return test_support::written_suite(root, "s",
                                       {{"spike", "pool", "r1"},
                                        {"spike", "loop", "r2"},
                                        {"deep", "pool", "r3"},
                                        {"plain", "pool", "r4"},
                                        {"mixed", "pool", "r5"},
                                        {"mixed", "loop", "r6"}},
                                       summary, contexts);
}

}  // namespace

TEST_CASE("a scaled run is labelled on the page, in the README cell and in the chart title", "[report][scale]")
{
    test_support::temp_dir d("execbench-report-scale");
    auto s = read_suite(scaled_suite(d.path / "results"));
    REQUIRE(s);
    CHECK(s->runs["spike"]["pool"].scale == Approx(0.97));
    CHECK(s->runs["plain"]["pool"].scale == 1);  // no value: runs from before scaling default to 1

    auto md = suite_markdown(*s, report_paths{});
    // Once per scenario, not once per model, with what it means.
    CHECK_THAT(md, Catch::Contains("**Scaled:** run at 0.97 scale: 19,400 peak users instead of 20,000"));
    CHECK(md.find("**Scaled:** run at 0.97 scale: 19,400") == md.rfind("**Scaled:** run at 0.97 scale: 19,400"));
    CHECK_THAT(md, Catch::Contains("stands for the scenario for practical purposes"));
    CHECK_THAT(md, Catch::Contains("**Scaled:** run at 0.66 scale: 6,600 req/s. A run at this scale is a smaller "
                                   "load than the scenario's, so it is not the scenario"));
    CHECK_THAT(md, Catch::Contains("| scale | 0.97 | 0.97 |"));
    CHECK_THAT(md, Catch::Contains("up to 19,400 users (at 0.97 scale)"));
    auto plain = md.substr(md.find("### plain"), md.find("### mixed") - md.find("### plain"));
    CHECK(plain.find("Scaled") == std::string::npos);  // an unscaled scenario gets no label
    CHECK(plain.find("| scale |") == std::string::npos);
    // Arms at different scales measured different loads: no verdicts between them.
    CHECK_THAT(md, Catch::Contains("**Not compared:** the arms ran at different scales (at 0.97, 1 scale)"));
    CHECK_THAT(md, Catch::Contains("| spike (at 0.97 scale) | "));      // in the winners table ...
    CHECK_THAT(md, !Catch::Contains("| mixed (at 0.97, 1 scale) | "));  // ... but not this one

    report_paths paths;
    paths.headline_suites = {"s"};
    auto out = build_report({*s}, paths);
    CHECK_THAT(out.readme_block,
               Catch::Contains("| [s](docs/results/s.md) | spike | 1,201 ms · 500 · *at 0.97 scale* |"));
    CHECK_THAT(out.readme_block, Catch::Contains("| deep | 80.0 ms · 300 · *at 0.66 scale* |"));
    CHECK_THAT(out.readme_block, Catch::Contains("| plain | 5.00 ms · 10 |"));
    CHECK_THAT(out.readme_block, Catch::Contains("below that it is a smaller load and not the scenario"));
    bool titled = false;
    for (const auto& c : out.charts)
        if (c.file.filename() == "spike.svg") {
            titled = true;
            CHECK_THAT(c.data_json, Catch::Contains(R"j("title":"s / spike (at 0.97 scale)")j"));
        }
    CHECK(titled);
}
