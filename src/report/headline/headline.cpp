#include "execbench/report/headline/headline.hpp"

#include "execbench/core/text.hpp"
#include "execbench/load/metrics/metrics.hpp"
#include "execbench/load/scenario/scale.hpp"
#include "execbench/report/judge/winners.hpp"
#include "execbench/report/page/markdown.hpp"
#include "execbench/report/suite_page/capacity_section.hpp"
#include "execbench/report/suite_page/scenario_rows.hpp"
#include "execbench/report/suite_page/suite_page.hpp"
#include "execbench/report/word/provenance_text.hpp"
#include "execbench/report/word/verdict_text.hpp"

#include <algorithm>
#include <set>
#include <sstream>

namespace execbench::report {

namespace metric = load::metric;

namespace {

/// One headline cell: p99 · req/s (bursts: p99 · wall time), with errors, unsent share and the noise mark; it
/// sorts by its p99.
cell headline_cell(const run_view* v)
{
    if (!v)
        return {"–"};
    if (!v->ran())
        return {v->status == load::run_status::not_run ? "not run" : "failed"};
    if (auto why = v->not_a_result(); !why.empty())
        return {"*" + why + "*"};
    const bool none_ok = v->number(metric::requests_ok) == 0;
    const bool burst = v->shape == load::shape::burst;
    std::string cell;
    if (none_ok) {
        // No latency or rate to show; the errors may still be answers (a 503 each), so not "no answer".
        cell = "0 ok";
    } else {
        cell = v->noisy ? "~" : "";
        // A figure the run did not measure is "–", not "0 ms".
        auto ms = [](std::optional<double> f) { return f ? millis(*f) + " ms" : std::string{"–"}; };
        cell += ms(v->figure(metric::latency_millis_p99));
        cell += burst ? " · wall " + ms(v->figure(metric::wall_millis))
                      : " · " + count(v->figure(metric::requests_per_second));
    }
    if (v->number(metric::requests_error) > 0)
        cell += " · **" + count(v->number(metric::requests_error)) + " errors**";
    if (auto share = unsent_percent(*v); !share.empty())
        cell += " · " + share + " % unsent";
    // Failures the median hides (one bad trial of three, one unsent request) from the worst trial.
    if (v->number(metric::requests_error) == 0 && whole(v->number(metric::requests_unsent)) == 0)
        if (auto f = failures_of(v->trials); f.any())
            cell += " · " + failure_text(f);
    if (v->scale != 1)
        cell += " · *at " + load::format_scale(v->scale) + " scale*";
    if (v->time_scale != 1)
        cell += " · *in " + load::format_scale(v->time_scale) + " of the time*";
    if (v->tls)
        cell += " · *" + tls_label(*v) + "*";
    if (none_ok)
        return {cell};
    return {cell, v->number(metric::latency_millis_p99)};
}

}  // namespace

std::vector<const suite_data*> headline_suites(const std::vector<suite_data>& suites, const report_paths& paths)
{
    std::vector<const suite_data*> out;
    for (const auto& name : paths.headline_suites)
        for (const auto& s : suites)
            if (s.name == name)
                out.push_back(&s);
    if (out.empty())
        for (const auto& s : suites)
            out.push_back(&s);
    return out;
}

namespace {

/// Every arm of the suites shown, in the order they first appear.
std::vector<std::string> arms_of(const std::vector<const suite_data*>& shown)
{
    std::vector<std::string> arms;
    for (const auto* s : shown)
        for (const auto& m : s->models)
            if (std::find(arms.begin(), arms.end(), m) == arms.end())
                arms.push_back(m);
    return arms;
}

/// The sentence above the table: the machine, the revisions, how to read a cell, which suites' runs were shortened,
/// and where the details are.
paragraph intro(const std::vector<const suite_data*>& shown, const std::vector<const suite_data*>& all,
                const report_paths& paths)
{
    std::ostringstream rb;
    std::vector<load::run_context> contexts;
    std::vector<std::string> shortened;
    for (const auto* s : shown) {
        contexts.insert(contexts.end(), s->contexts.begin(), s->contexts.end());
        if (!s->file_settings.empty()) {
            // Which way the suite's runs differ from their files: one word when they all went one way.
            std::set<std::string> ways;
            for (const auto& [sc, way] : s->file_change)
                ways.insert(to_string(way));
            std::string words;
            for (const auto& w : ways)
                words += (words.empty() ? "" : ", ") + w;
            shortened.push_back(s->name + " (" + words + ")");
        }
    }
    auto c = summarize_contexts(contexts);
    // The provenance names the code, build and machine once; a list of revisions would bury the sentence.
    rb << "Medians of the trials on " << c.machine << ", " << c.sharing << "; "
       << provenance_caption(split_provenance(all))
       << ". Each cell: p99 latency · requests per second (bursts: p99 · wall time), then requests that failed or "
          "the share an open-loop rate could not send; `~` marks a noisy run (a key figure's trial range exceeds "
          "20 % of its median). The last column compares the p99 of the arms: the winner's (or the arms sharing the "
          "lead, "
          "`fiber = loop`) factor over the runner-up with its 95 % bootstrap interval, or a tie where the interval "
          "holds 1 (every pair and metric "
          "on the pages).";
    if (!shortened.empty()) {
        rb << " Runs differ in length from their scenario files (bench-suite overrides) in:";
        for (std::size_t i = 0; i < shortened.size(); ++i)
            rb << (i ? ", " : " ") << shortened[i];
        rb << " (both lengths on the pages).";
    }
    if (paths.docs_link == ".")  // the HTML index itself: the suites' pages are listed above
        rb << " Details, spreads and charts on each suite's page";
    else
        rb << " Details, spreads and charts in [" << paths.docs_link << "/](" << paths.docs_link
           << "/) (open `index.html` there in a browser for the HTML report)";
    rb << "; how to read them in [methodology]("
       << (std::filesystem::path(paths.docs_link) / paths.methodology_link).lexically_normal().generic_string() << ").";
    return {rb.str()};
}

/// The table of every scenario shown, a cell per arm and the p99 verdict, and the notes its cells call for.
page scenario_table(const std::vector<const suite_data*>& shown, const std::vector<std::string>& arms,
                    const report_paths& paths)
{
    page p;
    table t{{"suite", "scenario"}, {}};
    t.header.insert(t.header.end(), arms.begin(), arms.end());
    t.header.emplace_back("p99 verdict (95 % interval)");
    const auto& p99 = winner_metric(metric::latency_millis_p99);
    bool any_scaled = false;
    bool any_compressed = false;
    bool any_bound = false;
    bool any_awaiting = false;
    for (const auto* s : shown) {
        auto w = rank(figures_of(*s), s->models);
        for (const auto& sc : s->scenarios) {
            std::vector<cell> r{"[" + s->name + "](" + paths.docs_link + "/" + s->name + ".md)", sc};
            for (const auto& m : arms) {
                const auto* v = find_run(*s, sc, m);
                any_scaled |= v && v->ran() && v->scale != 1;
                any_compressed |= v && v->ran() && v->time_scale != 1;
                auto why = v ? v->not_a_result() : std::string{};
                any_bound |= why == "generator-bound";
                any_awaiting |= !why.empty() && why != "generator-bound";
                r.push_back(headline_cell(v));
            }
            // Fewer than two arms ran: nothing to compare.
            auto cells = w.cells.find(sc);
            if (cells == w.cells.end() || !cells->second.count(p99.column))
                r.emplace_back("–");
            else
                r.push_back(verdict_line(cells->second.at(p99.column), p99));
            t.rows.push_back(std::move(r));
        }
    }
    p.add(std::move(t));
    if (any_bound)
        p.add(paragraph{
            "*generator-bound*: every trial of the arm saturated the load generator (its CPU at the bound over "
            "the trial or for three seconds in a row), so its figures measure the generator, not the server; "
            "they are on the page as evidence and take part in no verdict."});
    if (any_awaiting)
        p.add(paragraph{
            "*awaits re-measurement*: a ramp recorded before the generator was checked second by second; its "
            "average may hide a generator saturated at the peak, which would make the figures the generator's. "
            "They take part in no verdict until the scenario is run again."});
    if (any_scaled)
        p.add(paragraph{"*at F scale*: the scenario ran with its users, connections and rates times F to fit this "
                        "machine's open-file limits; from " +
                        load::format_scale(load::representative_scale) +
                        " up it stands for the scenario, below that it is a smaller load and not the scenario "
                        "([scaled runs](docs/methodology.md#scaled-runs))."});
    if (any_compressed)
        p.add(paragraph{"*in F of the time*: the scenario's timeline ran in F of its length, with the same users, "
                        "rates and think times, to fit the study's time budget; its verdicts are the compressed "
                        "load's ([compressed runs](docs/methodology.md#compressed-runs))."});
    return p;
}

/// Leads per suite, as counts. Not a share of decided cells: "loop 85 %" of 13 decided cells read as "loop wins"
/// where 35 cells were leads it shared with fiber. Every figure here is a count of verdicts as the pages state them.
page leads(const std::vector<const suite_data*>& shown, const std::vector<std::string>& arms)
{
    std::ostringstream rb;
    rb << "Leads per suite, counted over every metric × scenario cell: *alone* where one arm ranks above every other "
          "(the 95 % bootstrap interval of the ratio of medians more than "
       << tie_margin * 100 << " % from 1, or the others failing over " << failure_tolerance * 100
       << " % of a trial's requests), *shared* where arms that tie with each other rank above the rest (`fiber = "
          "loop`). CPU ranks per request only; CPU max, RSS and threads never decide a cell. Ties and cells without a "
          "verdict are counted apart; the pages say which is which:";
    page p;
    p.add(paragraph{rb.str()});
    table t{{"suite"}, {}};
    for (const auto& m : arms)
        t.header.push_back(m + ": alone · shared");
    t.header.insert(t.header.end(), {"cells", "ties"});
    // A count sorts as its number; "n/a" (one arm, or an arm the suite lacks) as text.
    auto count_cell = [](bool shown, unsigned n, std::string text) {
        return shown ? cell{std::move(text), double(n)} : cell{"n/a"};
    };
    for (const auto* s : shown) {
        auto w = rank(figures_of(*s), s->models);
        std::vector<cell> r{s->name};
        for (const auto& m : arms) {
            bool in = std::find(s->models.begin(), s->models.end(), m) != s->models.end();
            r.push_back(count_cell(!w.single_arm && in, in ? w.wins.at(m) : 0,
                                   in ? std::to_string(w.wins.at(m)) + " · " + std::to_string(w.shared_leads.at(m))
                                      : std::string{}));
        }
        unsigned cells =
            w.decided + w.shared + w.ties + w.too_few_trials + w.not_sampled + w.not_ranked + w.unequal_work;
        r.push_back(count_cell(!w.single_arm, cells, std::to_string(cells)));
        r.push_back(count_cell(!w.single_arm, w.ties, std::to_string(w.ties)));
        t.rows.push_back(std::move(r));
    }
    p.add(std::move(t));
    return p;
}

}  // namespace

page headline_page(const std::vector<suite_data>& suites, const report_paths& paths)
{
    auto shown = headline_suites(suites, paths);
    page p;
    p.add(comment{"Generated by bench-report from " + paths.results_label.generic_string() +
                  "/: do not edit between the markers."});
    if (shown.empty()) {
        p.add(paragraph{"No results yet: run `bench-suite --suite reactive` and `bench-report`."});
        return p;
    }
    auto arms = arms_of(shown);
    // The provenance is every suite's: the README's hand-written lines cite them all (unlabelled_citations).
    std::vector<const suite_data*> all;
    for (const auto& s : suites)
        all.push_back(&s);
    p.add(intro(shown, all, paths));
    p.append(scenario_table(shown, arms, paths));
    // Capacity searches of any suite, shown or not: the headline's one figure per arm and scenario.
    std::vector<const suite_data*> searched;
    for (const auto& s : suites)
        if (!s.capacity_scenarios.empty())
            searched.push_back(&s);
    p.append(capacity_headline(searched, arms_of(searched), paths));
    p.append(leads(shown, arms));
    return p;
}

std::string headline_block(const std::vector<suite_data>& suites, const report_paths& paths)
{
    // A blank line after the begin marker and before the end marker.
    return "\n" + to_markdown(headline_page(suites, paths)) + "\n";
}

std::vector<std::string> verdict_summary(const suite_data& s, const std::vector<std::string>& only)
{
    std::vector<std::string> out;
    auto w = rank(figures_of(s), s.models);
    for (const auto& sc : w.scenarios) {
        if (!only.empty() && std::find(only.begin(), only.end(), sc) == only.end())
            continue;
        const auto& cells = w.cells.at(sc);
        for (auto column : {metric::latency_millis_p99, metric::requests_per_second, cpu_seconds_per_1k_requests}) {
            const auto& rule = winner_metric(column);
            if (auto it = cells.find(rule.column); it != cells.end())
                out.push_back(sc + " " + rule.label + " — " + verdict_line(it->second, rule));
        }
    }
    return out;
}

page verdicts_page(const suite_data& s, const std::vector<std::string>& only)
{
    page p;
    bullets lines{verdict_summary(s, only)};
    if (lines.items.empty())
        return p;
    p.add(paragraph{"verdicts (ratio of medians, 95 % bootstrap interval; a tie within " + fixed(tie_margin * 100, 0) +
                    " %):"});
    p.add(std::move(lines));
    return p;
}

namespace {

/// `readme` with the text between `begin` and `end` replaced by `block` (markers kept); without both markers, the
/// markers and block appended at the end when `append`, else `readme` unchanged.
std::string replace_between(std::string_view readme, std::string_view begin, std::string_view end,
                            std::string_view block, bool append)
{
    auto b = readme.find(begin);
    auto e = b == std::string_view::npos ? std::string_view::npos : readme.find(end, b);
    std::string out;
    if (b == std::string_view::npos || e == std::string_view::npos) {
        out = std::string(readme);
        if (!append)
            return out;
        if (!out.empty() && out.back() != '\n')
            out += '\n';
        if (!out.empty())
            out += '\n';
        out += std::string(begin) + std::string(block) + std::string(end) + "\n";
        return out;
    }
    out = std::string(readme.substr(0, b + begin.size()));
    out += block;
    out += readme.substr(e);
    return out;
}

}  // namespace

std::string replace_headline(std::string_view readme, std::string_view block)
{
    return replace_between(readme, "<!-- results:begin -->", "<!-- results:end -->", block, true);
}

std::string replace_map_block(std::string_view readme, std::string_view block)
{
    return replace_between(readme, "<!-- map:begin -->", "<!-- map:end -->", block, false);
}

std::vector<std::string> unlabelled_citations(std::string_view readme, const std::vector<const suite_data*>& suites)
{
    auto split = split_provenance(suites);
    std::map<std::string, std::string, std::less<>> differing;  // suite → how its first differing run differs
    for (const auto& d : split.differing)
        differing.emplace(d.suite, difference(split.common, d.from));
    std::vector<std::string> out;
    bool generated = false;
    std::size_t number = 0;
    for (std::size_t at = 0; at < readme.size();) {
        auto end = std::min(readme.find('\n', at), readme.size());
        auto line = readme.substr(at, end - at);
        at = end + 1;
        ++number;
        if (line.find("<!-- results:begin -->") != line.npos || line.find("<!-- map:begin -->") != line.npos)
            generated = true;
        if (line.find("<!-- results:end -->") != line.npos || line.find("<!-- map:end -->") != line.npos)
            generated = false;
        if (generated || line.find("\xe2\x80\xa0") != line.npos)  // † in UTF-8
            continue;
        constexpr std::string_view link = "docs/results/";
        std::set<std::string> named;
        for (auto p = line.find(link); p != line.npos; p = line.find(link, p + 1)) {
            auto name_end = line.find(".md", p);
            if (name_end == line.npos)
                continue;
            auto suite = std::string(line.substr(p + link.size(), name_end - p - link.size()));
            if (auto d = differing.find(suite); d != differing.end() && named.insert(suite).second)
                out.push_back("README line " + std::to_string(number) + " cites " + suite +
                              " without †, but runs there differ from the common provenance (" + d->second + ")");
        }
    }
    return out;
}

}  // namespace execbench::report
