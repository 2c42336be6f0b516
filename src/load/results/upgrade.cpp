#include "execbench/load/results/upgrade.hpp"

#include "execbench/load/metrics/metrics.hpp"
#include "execbench/load/record/measurement.hpp"

#include <charconv>
#include <cmath>
#include <cstdlib>

namespace execbench::load {

namespace {

/// `column` set to `value` where the row lacks it or left it empty: what a version that did not write it meant.
void fill(record_row& row, std::string_view column, const std::string& value)
{
    auto it = row.find(column);
    if (it == row.end())
        row.emplace(std::string(column), value);
    else if (it->second.empty())
        it->second = value;
}

/// Schema 1, every file written before rows stated a schema (and before 2026-12-06), to 2.
void from_unversioned(row_kind kind, record_row& row)
{
    // Written before arms existed: the arm is the model. Every file naming a model has an arm since.
    if (auto model = row.find(column::model); model != row.end())
        fill(row, column::arm, model->second);
    switch (kind) {
    case row_kind::summary:
        // Written before --scale and --fit-to-limits: the scenario ran as written.
        fill(row, column::scale, "1");
        // Written before bench-load spoke TLS: every load was cleartext.
        fill(row, column::tls, "0");
        break;
    case row_kind::trial:
        if (auto samples = row.find(metric::server_samples); samples == row.end() || samples->second.empty()) {
            // Written before the column: the sampler of these runs ran at bench-load's default 10 Hz, one sample at
            // the start, one per 100 ms, one at the end. The estimate can only be low by the connection set-up time
            // outside the wall time, which is what matters for the bursts it is used on.
            auto wall = row.find(metric::wall_millis);
            double millis = wall == row.end() ? 0 : std::strtod(wall->second.c_str(), nullptr);
            constexpr double period_millis = 100;
            row[std::string(metric::server_samples)] =
                std::to_string(2 + static_cast<long long>(std::floor(millis / period_millis)));
        }
        break;
    case row_kind::capacity:
        // Written before --pipeline: one request at a time on a connection.
        fill(row, "pipeline", "1");
        break;
    case row_kind::timeline:
    case row_kind::server_timeline:
    case row_kind::ledger:
    case row_kind::capacity_step:
    case row_kind::profile:
    case row_kind::histogram: break;
    }
}

/// Schema 2 to 3 (2026-12-06): bench-load speaks HTTP/2, and a run may be compressed (--time-scale).
void from_2(row_kind kind, record_row& row)
{
    switch (kind) {
    case row_kind::summary:
        fill(row, column::time_scale, "1");  // written before --time-scale: every run took its whole timeline
        // Written before --http2: every load spoke HTTP/1.1, one request per stream of it.
        fill(row, column::protocol, std::string(to_string(http_protocol::http1_1)));
        fill(row, column::streams, "1");
        [[fallthrough]];
    case row_kind::trial:
        // An HTTP/1.1 load meets no stream reset and no GOAWAY: none happened, so 0 is what was measured.
        for (auto c : {error_class::h2_reset, error_class::h2_goaway})
            if (row.contains(metric::errors_column(to_string(error_class::reset))))
                fill(row, metric::errors_column(to_string(c)), "0");
        break;
    case row_kind::timeline:
    case row_kind::server_timeline:
    case row_kind::ledger:
    case row_kind::capacity:
    case row_kind::capacity_step:
    case row_kind::profile:
    case row_kind::histogram: break;
    }
}

/// Schema 3 to 4 (2026-12-07): a scenario may give up what is still in flight at its graceful stop.
void from_3(row_kind kind, record_row& row)
{
    // Written before graceful stops: every request in flight at the end waited out its timeout, so none was given
    // up, and 0 is what was measured.
    if ((kind == row_kind::summary || kind == row_kind::trial) &&
        row.contains(metric::errors_column(to_string(error_class::reset))))
        fill(row, metric::errors_column(to_string(error_class::interrupted)), "0");
}

}  // namespace

result<unsigned> schema_of(std::string_view cell, std::string_view where)
{
    if (cell.empty())
        return unversioned_schema;
    unsigned version = 0;
    auto [end, ec] = std::from_chars(cell.data(), cell.data() + cell.size(), version);
    if (ec != std::errc{} || end != cell.data() + cell.size() || version == 0)
        return fail(std::string(where) + ": schema '" + std::string(cell) + "' is not a version number");
    if (version > schema_version)
        return fail(std::string(where) + ": schema " + std::to_string(version) +
                    " is newer than this execbench reads (" + std::to_string(schema_version) +
                    "); rebuild execbench from the revision that wrote it or a later one");
    return version;
}

void upgrade(row_kind kind, record_row& row, unsigned version)
{
    if (version < 2)
        from_unversioned(kind, row);
    if (version < 3)
        from_2(kind, row);
    if (version < 4)
        from_3(kind, row);
    row[std::string(column::schema)] = std::to_string(schema_version);
}

result<void> bring_to_current(row_kind kind, record_row& row, std::string_view where)
{
    auto cell = row.find(column::schema);
    auto version = schema_of(cell == row.end() ? std::string_view{} : std::string_view(cell->second), where);
    if (!version)
        return version.err();
    upgrade(kind, row, *version);
    return {};
}

result<std::vector<record_row>> current_rows(const csv_table& table, row_kind kind, const std::filesystem::path& file,
                                             const raw_row_filter& wanted)
{
    std::vector<record_row> out;
    for (std::size_t i = 0; i < table.rows.size(); ++i) {
        const auto& cells = table.rows[i];
        if (wanted && !wanted(table, cells))
            continue;
        record_row row;
        for (std::size_t c = 0; c < table.header.size() && c < cells.size(); ++c)
            row[table.header[c]] = cells[c];
        if (auto ok = bring_to_current(kind, row, file.string() + " line " + std::to_string(i + 2)); !ok)
            return ok.err();
        out.push_back(std::move(row));
    }
    return out;
}

result<std::vector<record_row>> read_current_rows(const std::filesystem::path& file, row_kind kind,
                                                  const raw_row_filter& wanted)
{
    auto table = read_csv(file);
    if (!table)
        return table.err();
    return current_rows(*table, kind, file, wanted);
}

}  // namespace execbench::load
