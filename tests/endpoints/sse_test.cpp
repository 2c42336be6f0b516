#include "execbench/endpoints/sse.hpp"

#include <catch2/catch.hpp>

#include <string>

using execbench::endpoints::append_sse_event;

TEST_CASE("append_sse_event writes the natural event without padding", "[endpoints]")
{
    std::string out;
    append_sse_event(0, 0, out);
    CHECK(out == "data: event-0\n\n");
    append_sse_event(123, 0, out);
    CHECK(out == "data: event-0\n\ndata: event-123\n\n");
}

TEST_CASE("append_sse_event never truncates below the natural size", "[endpoints]")
{
    std::string out;
    append_sse_event(42, 5, out);
    CHECK(out == "data: event-42\n\n");
    out.clear();
    append_sse_event(42, 16, out);  // exactly the natural size
    CHECK(out == "data: event-42\n\n");
}

TEST_CASE("append_sse_event pads with '.' to exactly event_bytes", "[endpoints]")
{
    std::string out;
    append_sse_event(7, 20, out);
    CHECK(out == "data: event-7.....\n\n");
    for (std::size_t size : {21u, 100u, 1024u, 65536u}) {
        std::string event = "prefix";
        append_sse_event(999999, size, event);
        CHECK(event.size() == 6 + size);
        CHECK(event.substr(6, 18) == "data: event-999999");
        CHECK(event.substr(event.size() - 2) == "\n\n");
        CHECK(event.find('\n') == event.size() - 2);
    }
}

TEST_CASE("sse_event_size is the size append_sse_event writes", "[endpoints]")
{
    for (std::size_t index : {0u, 9u, 10u, 99u, 12345u}) {
        for (std::size_t bytes : {0u, 5u, 16u, 17u, 100u}) {
            std::string out;
            append_sse_event(index, bytes, out);
            CHECK(execbench::endpoints::sse_event_size(index, bytes) == out.size());
        }
    }
}
