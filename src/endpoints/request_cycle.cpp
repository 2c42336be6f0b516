#include "execbench/endpoints/request_cycle.hpp"

#include "execbench/http/failure.hpp"
#include "execbench/http/request_parser.hpp"

namespace execbench::endpoints {

request_cycle::~request_cycle()
{
    if (open_)
        finish(false);
}

bool request_cycle::begin(bool stopping)
{
    auto req = storage.view();
    app_.counters().request_started();
    open_ = true;
    started_ = true;
    requested_keep_alive_ = req.keep_alive;
    stopping_ = stopping;
    http10_ = req.http10;
    http2_ = req.http2;
    head_ = req.method == http::verb::head;
    response.clear();
    const bool planned = app_.plan(req, plan, response);
    // An HTTP/1.0 client cannot read chunked coding: its stream's end is the connection's.
    if (planned && plan.what == work::stream && http10_)
        response.close = true;
    return planned;
}

bool request_cycle::reject(const boost::system::error_code& ec)
{
    if (!http::is_parse_error(ec))
        return false;
    std::string_view message;
    reject(http::classify_parse_error(ec, message), message);
    return true;
}

void request_cycle::reject(http::failure f, std::string_view message)
{
    http::make_error(f, message, response);
    open_ = true;
    started_ = false;
    requested_keep_alive_ = false;
    http10_ = false;
    http2_ = false;
    head_ = false;
}

std::string_view request_cycle::downstream_target()
{
    app_.downstream_target(plan, target_);
    return target_;
}

bool request_cycle::stage1_done(const http::call_outcome& outcome)
{
    if (!outcome.failed)
        return true;
    app_.respond_downstream_failure(*outcome.failed, outcome.detail, response);
    return false;
}

void request_cycle::append_head(std::string& out)
{
    http::serialize_head(response, framing(), out);
    if (head_)
        response.body.clear();
}

bool request_cycle::keeps_open() const noexcept
{
    return http::keeps_open(requested_keep_alive_, response, stopping_);
}

bool request_cycle::finish(bool written)
{
    if (started_)
        app_.counters().request_finished(plan.route, response.code);
    else
        app_.counters().request_rejected(response.code);
    open_ = false;
    started_ = false;
    return written && keeps_open();
}

}  // namespace execbench::endpoints
