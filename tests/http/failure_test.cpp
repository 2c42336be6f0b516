#include "execbench/http/failure.hpp"

#include <boost/asio/error.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/http/error.hpp>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

using namespace execbench::http;
namespace be = boost::beast::http;

TEST_CASE("each failure maps to its status", "[http]")
{
    CHECK(to_status(failure::bad_parameter) == status::bad_request);
    CHECK(to_status(failure::bad_body) == status::bad_request);
    CHECK(to_status(failure::malformed_request) == status::bad_request);
    CHECK(to_status(failure::not_found) == status::not_found);
    CHECK(to_status(failure::method_not_allowed) == status::method_not_allowed);
    CHECK(to_status(failure::header_too_large) == status::request_header_fields_too_large);
    CHECK(to_status(failure::body_too_large) == status::payload_too_large);
    CHECK(to_status(failure::unsupported_media_type) == status::unsupported_media_type);
    CHECK(to_status(failure::downstream_unavailable) == status::bad_gateway);
    CHECK(to_status(failure::downstream_bad_answer) == status::bad_gateway);
    CHECK(to_status(failure::downstream_timeout) == status::gateway_timeout);
    CHECK(to_status(failure::overloaded) == status::service_unavailable);
    CHECK(to_status(failure::internal) == status::internal_server_error);
}

TEST_CASE("make_error writes a JSON error and closes when the stream cannot be trusted", "[http]")
{
    response r;
    r.body = "left over";
    make_error(failure::bad_parameter, "delayInMillis must be an integer in 0..60000", r);
    CHECK(r.code == status::bad_request);
    CHECK(nlohmann::json::parse(r.body) == nlohmann::json{{"error", "delayInMillis must be an integer in 0..60000"}});
    CHECK_FALSE(r.close);  // the request was framed correctly: the connection goes on

    for (auto f : {failure::malformed_request, failure::header_too_large, failure::body_too_large}) {
        make_error(f, "x", r);
        CHECK(r.close);
    }

    make_error(failure::overloaded, "busy", r);
    CHECK(r.code == status::service_unavailable);
    CHECK(r.retry_after_seconds == 1);

    make_error(failure::not_found, "bad \xff byte", r);  // invalid UTF-8 in a message must not throw
    CHECK(nlohmann::json::parse(r.body).contains("error"));
    CHECK(r.retry_after_seconds == 0);
}

TEST_CASE("classify_parse_error maps parser errors to failures with a message", "[http]")
{
    std::string_view message;
    auto check = [&](boost::system::error_code ec, failure expected) {
        INFO(ec.message());
        message = {};
        CHECK(classify_parse_error(ec, message) == expected);
        CHECK_FALSE(message.empty());
    };
    check(be::error::header_limit, failure::header_too_large);
    check(be::error::body_limit, failure::body_too_large);
    check(be::error::bad_version, failure::malformed_request);
    check(be::error::bad_method, failure::malformed_request);
    check(be::error::bad_target, failure::malformed_request);
    check(be::error::bad_field, failure::malformed_request);
    check(be::error::bad_value, failure::malformed_request);
    check(be::error::bad_content_length, failure::malformed_request);
    check(be::error::multiple_content_length, failure::malformed_request);
    check(be::error::bad_transfer_encoding, failure::malformed_request);
    check(be::error::bad_chunk, failure::malformed_request);
    check(be::error::bad_line_ending, failure::malformed_request);

    classify_parse_error(be::error::multiple_content_length, message);
    CHECK_THAT(std::string(message), Catch::Contains("Content-Length"));
    classify_parse_error(be::error::header_limit, message);
    CHECK_THAT(std::string(message), Catch::Contains("8192"));
    classify_parse_error(be::error::body_limit, message);
    CHECK_THAT(std::string(message), Catch::Contains("1048576"));
}

TEST_CASE("classify_downstream_error tells timeouts, refusals and bad answers apart", "[http]")
{
    CHECK(classify_downstream_error(boost::beast::error::timeout) == failure::downstream_timeout);
    CHECK(classify_downstream_error(boost::asio::error::timed_out) == failure::downstream_timeout);
    CHECK(classify_downstream_error(boost::asio::error::connection_refused) == failure::downstream_unavailable);
    CHECK(classify_downstream_error(boost::asio::error::connection_reset) == failure::downstream_unavailable);
    CHECK(classify_downstream_error(be::error::end_of_stream) == failure::downstream_unavailable);
    CHECK(classify_downstream_error(be::error::bad_version) == failure::downstream_bad_answer);
    CHECK(classify_downstream_error(be::error::body_limit) == failure::downstream_bad_answer);
}
