#include "execbench/report/word/words.hpp"

#include "execbench/core/text.hpp"
#include "execbench/load/metrics/metrics.hpp"

#include <cmath>

namespace execbench::report {

namespace metric = load::metric;

std::string millis(double v)
{
    // The precision follows the size as it will be printed: 99.97 is "100", not "100.0" beside a "100".
    if (v >= 999.5)
        return count(v);
    if (v >= 99.95)
        return fixed(v, 0);
    if (v >= 9.995)
        return fixed(v, 1);
    return fixed(v, 2);
}

double whole(double v)
{
    // Half to even, as bench-suite's printf rounds: a median of 0 and 1 is 0 on every line that shows it.
    return std::nearbyint(v);
}

std::string count(double v)
{
    auto s = fixed(whole(v), 0);
    if (s == "-0")
        s = "0";
    std::string out;
    int digits = 0;
    for (auto it = s.rbegin(); it != s.rend(); ++it) {
        if (digits > 0 && digits % 3 == 0 && *it != '-')
            out.insert(out.begin(), ',');
        out.insert(out.begin(), *it);
        if (*it != '-')
            ++digits;
    }
    return out;
}

std::string millis(std::optional<double> v)
{
    return v ? millis(*v) : std::string{"–"};
}

std::string count(std::optional<double> v)
{
    return v ? count(*v) : std::string{"–"};
}

std::string fixed_or_dash(std::optional<double> v, int decimals)
{
    return v ? fixed(*v, decimals) : std::string{"–"};
}

std::string latency(const run_view& v, std::string_view column)
{
    return v.number(metric::requests_ok) > 0 ? millis(v.figure(column)) : std::string{"–"};
}

std::string failure_text(const failure_record& f)
{
    if (!f.any())
        return {};
    std::string worst;
    if (f.worst_errors > 0)
        worst = count(f.worst_errors) + (f.worst_errors == 1 ? " error" : " errors");
    if (f.worst_unsent > 0)
        worst += (worst.empty() ? "" : " + ") + count(f.worst_unsent) + " unsent";
    if (!f.over())
        return "≤" + worst;
    return (f.trials_over > 1 ? "up to " : "") + worst + " in " + std::to_string(f.trials_over) + " of " +
           std::to_string(f.trials) + " trials";
}

}  // namespace execbench::report
