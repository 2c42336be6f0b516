#include "support/fake_suite.hpp"

#include "execbench/load/results/ledger.hpp"
#include "execbench/stats/histogram.hpp"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace execbench::test_support {

namespace {

// A serialized histogram of `micros`, as the histograms file holds it.
std::string histogram_text(std::initializer_list<std::int64_t> micros)
{
    execbench::stats::histogram h;
    for (auto v : micros)
        h.record(v);
    return h.serialize();
}

}  // namespace

void write_file(const std::filesystem::path& p, const std::string& text)
{
    std::filesystem::create_directories(p.parent_path());
    std::ofstream out(p);
    out << text;
}

std::string read_back(const std::filesystem::path& p)
{
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

std::filesystem::path fake_suite(const std::filesystem::path& root, const std::string& name)
{
    auto dir = root / name;
    std::filesystem::create_directories(dir);
    auto ledger = load::ledger_path(dir, name);
    REQUIRE(load::append_ledger(ledger,
                                {"s", "io", "pool", load::run_status::ok, "r1", "2026-01-01T00:00:00Z", 3, "", ""}));
    REQUIRE(load::append_ledger(
        ledger, {"s", "io", "fiber", load::run_status::errors, "r2", "2026-01-01T00:00:05Z", 3,
                 "errors_reset=2; bench-server exited with status 1 after SIGTERM; round 2: timed out; bench-server "
                 "exited with status 1 after SIGTERM",
                 ""}));
    REQUIRE(load::append_ledger(ledger, {"s", "io", "loop", load::run_status::not_run, "", "2026-01-01T00:00:09Z", 0,
                                         "not run: the open-file limit (RLIMIT_NOFILE) is 20000", ""}));
    write_file(dir / (name + ".csv"),
               "scenario,model,run_id,trials,requests_ok,requests_error,errors_reset,requests_per_second,wall_millis,"
               "latency_millis_p50,latency_millis_p99,latency_millis_max,server_rss_mb_max,shape,requests,connections,"
               "noisy,noisy_metrics\n"
               "io,pool,r1,3,600,0,0,1500.4,400,400,1201,1300,12.5,burst,600,600,0,\n"
               "io,fiber,r2,3,598,2,2,1900,315,300,720,800,10.1,burst,600,600,1,wall_millis\n");
    write_file(dir / (name + "-histograms.txt"),
               "# execbench histograms v1\n"
               "r1\tio\tpool\t1\tlatency\t" +
                   histogram_text({400'000, 900'000, 1'201'000}) + "\n" + "r1\tio\tpool\t2\tlatency\t" +
                   histogram_text({410'000, 1'300'000}) + "\n" + "r2\tio\tfiber\t1\tlatency\t" +
                   histogram_text({300'000, 720'000}) + "\n");
    if (name != "s")
        for (const auto* f : {"-trials.csv", "-timeline.csv", "-server-timeline.csv", "-context.jsonl"})
            std::filesystem::copy_file(root / "s" / ("s" + std::string(f)), dir / (name + f),
                                       std::filesystem::copy_options::overwrite_existing);
    if (name != "s")
        return dir;
    write_file(dir / "s-trials.csv", "run_id,scenario,model,trial,latency_millis_p99,requests_error\n"
                                     "r1,io,pool,1,1300,0\nr1,io,pool,2,1201,0\nr1,io,pool,3,1100,0\n"
                                     "r2,io,fiber,1,700,0\nr2,io,fiber,2,720,2\nr2,io,fiber,3,900,2\n");
    write_file(dir / "s-timeline.csv",
               "run_id,scenario,model,trial,second,requests_ok,requests_error,latency_millis_p50,latency_millis_p90,"
               "latency_millis_p99\n"
               "r1,io,pool,2,0,600,0,400,900,1201\nr1,io,pool,1,0,1,0,1,1,1\nr2,io,fiber,2,0,598,2,300,600,720\n");
    write_file(load::server_timeline_path(dir, "s"),
               "run_id,scenario,model,trial,second,server_cpu_percent,server_rss_mb,server_threads\n"
               "r1,io,pool,2,0,55.5,12.5,201\nr2,io,fiber,2,0,40,10.1,3\n");
    write_file(
        dir / "s-context.jsonl",
        R"({"run_id":"r1","started_at":"2026-01-01T00:00:00Z","execbench":{"version":"0.1.0","git_revision":"abc","build_type":"Release","compiler":"GCC 12"},"machine":{"cpu_model":"Test CPU","cpu_count":2,"kernel":"6.1"},"scenario":{"name":"io","description":"600 at once","server":{"downstream":"self","downstream_model":"loop","options":{}}},"load_settings":{"threads":1,"url":"http://127.0.0.1:4000"}})"
        "\n");
    return dir;
}

bool have_matplotlib()
{
    return std::system("/usr/bin/python3 -c 'import matplotlib' >/dev/null 2>&1") == 0;
}

std::string context_line(const std::string& run_id, const std::string& scenario, const std::string& scenario_fields,
                         const std::string& fields)
{
    return R"({"run_id":")" + run_id + R"(","machine":{},"execbench":{},"load_settings":{},"scenario":{"name":")" +
           scenario + "\"" + scenario_fields + "}" + fields + "}\n";
}

std::filesystem::path written_suite(const std::filesystem::path& root, const std::string& name,
                                    const std::vector<fake_run>& runs, const std::string& summary_csv,
                                    const std::string& context_jsonl)
{
    auto dir = root / name;
    std::filesystem::create_directories(dir);
    auto ledger = load::ledger_path(dir, name);
    for (const auto& r : runs)
        REQUIRE(load::append_ledger(
            ledger, {name, r.scenario, r.model, load::run_status::ok, r.run_id, "2026-01-01T00:00:00Z", 3, "", ""}));
    write_file(dir / (name + ".csv"), summary_csv);
    write_file(dir / (name + "-context.jsonl"), context_jsonl);
    return dir;
}

}  // namespace execbench::test_support
