#pragma once

#include "execbench/load/scenario/scenario.hpp"

#include <string>

namespace execbench::test_support {

/// GETs of `path` in the `kind` shape, one trial and no pause between trials, each request given `timeout`; the test
/// sets the load's figures. `name` (also its description) is what the result lines show.
inline load::scenario one_trial_of(const std::string& path, load::shape kind, load::duration timeout,
                                   const std::string& name)
{
    load::scenario s;
    s.name = name;
    s.description = name;
    load::request_spec r;
    r.path = path;
    s.mix.push_back(r);
    s.load.kind = kind;
    s.trials = 1;
    s.pause = load::duration::zero();
    s.timeout = timeout;
    return s;
}

}  // namespace execbench::test_support
