#include "execbench/load/run/kernel_counters.hpp"

#include "execbench/core/file.hpp"
#include "execbench/load/metrics/metrics.hpp"

#include <charconv>
#include <sstream>

namespace execbench::load {

namespace {

std::vector<std::string_view> words_of(std::string_view line)
{
    std::vector<std::string_view> words;
    std::size_t at = 0;
    while ((at = line.find_first_not_of(' ', at)) != std::string_view::npos) {
        auto end = line.find(' ', at);
        words.push_back(line.substr(at, end == std::string_view::npos ? std::string_view::npos : end - at));
        at = end;
    }
    return words;
}

bool number_of(std::string_view text, std::uint64_t& value)
{
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    return ec == std::errc{} && end == text.data() + text.size();
}

std::uint64_t value_of(const std::map<std::string, std::uint64_t>& v, const std::string& key)
{
    auto it = v.find(key);
    return it == v.end() ? 0 : it->second;
}

}  // namespace

std::map<std::string, std::uint64_t> parse_proc_net(std::string_view text)
{
    std::map<std::string, std::uint64_t> out;
    std::vector<std::string_view> lines;
    for (std::size_t at = 0; at < text.size();) {
        auto end = text.find('\n', at);
        lines.push_back(text.substr(at, end == std::string_view::npos ? std::string_view::npos : end - at));
        at = end == std::string_view::npos ? text.size() : end + 1;
    }
    for (std::size_t i = 0; i < lines.size(); ++i) {
        auto words = words_of(lines[i]);
        std::uint64_t v = 0;
        // A table's name, then names: a header line; a values line alone (its header missing) is skipped.
        if (words.size() < 2 || !words[0].ends_with(':') || number_of(words[1], v))
            continue;
        auto table = std::string(words[0].substr(0, words[0].size() - 1)) + ".";
        auto values = i + 1 < lines.size() ? words_of(lines[i + 1]) : std::vector<std::string_view>{};
        if (values.size() == words.size() && values[0] == words[0]) {
            // netstat and snmp: the values are on the next line, in the header's order.
            for (std::size_t k = 1; k < words.size(); ++k)
                if (number_of(values[k], v))
                    out[table + std::string(words[k])] = v;
            ++i;
            continue;
        }
        // sockstat: names and values alternate on one line ("TCP: inuse 1 orphan 0 tw 2").
        for (std::size_t k = 1; k + 1 < words.size(); k += 2)
            if (number_of(words[k + 1], v))
                out[table + std::string(words[k])] = v;
    }
    return out;
}

result<kernel_counters> read_kernel_counters()
{
    std::map<std::string, std::uint64_t> v;
    for (const char* path : {"/proc/net/netstat", "/proc/net/snmp", "/proc/net/sockstat"}) {
        auto text = read_file(path);
        if (!text)
            return text.err();
        v.merge(parse_proc_net(*text));
    }
    kernel_counters k;
    k.listen_overflows = value_of(v, "TcpExt.ListenOverflows");
    k.listen_drops = value_of(v, "TcpExt.ListenDrops");
    k.syn_retransmits = value_of(v, "TcpExt.TCPSynRetrans");
    k.timeouts = value_of(v, "TcpExt.TCPTimeouts");
    k.active_opens = value_of(v, "Tcp.ActiveOpens");
    k.passive_opens = value_of(v, "Tcp.PassiveOpens");
    k.resets_sent = value_of(v, "Tcp.OutRsts");
    for (const char* abort : {"TCPAbortOnData", "TCPAbortOnClose", "TCPAbortOnMemory", "TCPAbortOnTimeout",
                              "TCPAbortOnLinger", "TCPAbortFailed"})
        k.aborts += value_of(v, std::string("TcpExt.") + abort);
    k.time_wait = value_of(v, "TCP.tw");
    return k;
}


result<std::uint32_t> local_port_count()
{
    constexpr const char* path = "/proc/sys/net/ipv4/ip_local_port_range";
    auto text = read_file(path);
    if (!text)
        return text.err();
    std::istringstream in(*text);
    std::uint32_t low = 0;
    std::uint32_t high = 0;
    if (!(in >> low >> high) || high < low)
        return fail(std::string(path) + ": not two ascending port numbers");
    return high - low + 1;
}

std::string port_range_warning(std::uint64_t connections, std::uint32_t ports, std::uint64_t time_wait,
                               std::uint32_t sources)
{
    auto capacity = std::uint64_t{ports} * std::max(1u, sources);
    if (connections + time_wait <= capacity)
        return {};
    return std::to_string(connections) + " connections" +
           (time_wait > 0 ? " and " + std::to_string(time_wait) + " sockets still in TIME_WAIT" : std::string()) +
           " need more local ports than the " + std::to_string(ports) + " of ip_local_port_range" +
           (sources > 1 ? " on each of " + std::to_string(sources) + " source addresses" : std::string()) +
           ": connect() will fail with EADDRNOTAVAIL or search long for a free port; widen "
           "/proc/sys/net/ipv4/ip_local_port_range or wait for TIME_WAIT to drain (60 s)";
}

}  // namespace execbench::load
