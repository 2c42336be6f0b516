#pragma once

#include "execbench/load/run/runner.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <utility>

namespace execbench::test_support {

/// Runs scenario `s` (one trial) against `url` in this process, as bench-load would, and requires that it ran.
inline load::run_record run_ok(const load::scenario& s, const std::string& url)
{
    load::run_options o;
    o.url = url;
    auto r = load::run(s, o);
    INFO((r.ok() ? std::string() : r.err().message));
    REQUIRE(r.ok());
    REQUIRE(r->trials.size() == 1);
    return std::move(r.value());
}

}  // namespace execbench::test_support
