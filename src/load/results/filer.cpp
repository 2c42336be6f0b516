#include "execbench/load/results/filer.hpp"

#include "execbench/load/results/capacity_results.hpp"
#include "execbench/load/results/csv_lines.hpp"
#include "execbench/load/results/hlog.hpp"
#include "execbench/load/results/profile_files.hpp"
#include "execbench/load/results/results.hpp"

namespace execbench::load {

result<void> file_run(const run_record& r, const run_filing& where)
{
    if (where.results) {
        const bool own_context = where.context_rounds.empty();
        if (auto w = write_results(r, *where.results, own_context); !w)
            return w;
        for (const auto* round : where.context_rounds)
            if (auto w = append_context(*round, *where.results); !w)
                return w;
    }
    if (where.hlog)
        if (auto w = write_hlog(r, *where.hlog); !w)
            return w;
    if (const auto& t = where.server_timeline; t && t->servers)
        if (auto w = detail::append_lines(t->file, detail::server_timeline_header,
                                          detail::server_timeline_lines(r, *t->servers, t->period));
            !w)
            return w;
    if (where.ledger && where.entry)
        return append_ledger(*where.ledger, *where.entry);
    return {};
}

result<void> file_capacity(const capacity_record& c, const std::filesystem::path& out, const run_record* first_step)
{
    if (!c.run_id.empty())
        if (auto w = write_capacity(c, capacity_paths_for(out)); !w)
            return w;
    if (first_step)
        return append_context(*first_step, output_paths_for(out));
    return {};
}

result<void> file_profile(const profile_capture& c, const std::filesystem::path& dir)
{
    return write_profile(c, dir);
}

}  // namespace execbench::load
