// The coro model's frame cache (include/execbench/models/coro_task.hpp): what it keeps, for whom, and that a
// sanitizer build keeps nothing, so AddressSanitizer sees every frame freed.
#include "execbench/models/coro_task.hpp"

#include <catch2/catch.hpp>

#include <cstddef>
#include <set>
#include <vector>

namespace {

using execbench::models::coro_detail::frame_cache;

// Takes back whatever the cache kept on this thread, so each case starts from an empty cache: a block of every size
// used below is allocated until the cache has none left of it (a fresh allocation is never one it handed out).
void drain(std::initializer_list<std::size_t> sizes)
{
    std::vector<std::pair<void*, std::size_t>> taken;
    for (auto size : sizes)
        for (std::size_t i = 0; i < frame_cache::slot_count; ++i)
            taken.emplace_back(frame_cache::allocate(size), size);
    for (auto [block, size] : taken)
        ::operator delete(block);
}

}  // namespace

TEST_CASE("frame_cache hands a freed frame's block to the next frame of its size", "[coro]")
{
    drain({96, 160});
    CHECK(frame_cache::kept(96) == 0);
    void* first = frame_cache::allocate(96);
    frame_cache::deallocate(first, 96);
    void* again = frame_cache::allocate(96);
    void* other = frame_cache::allocate(160);  // another size never gets it
    if constexpr (frame_cache::recycles) {
        CHECK(again == first);
    } else {
        // A sanitizer build keeps nothing: the heap decides, and ASan sees each free.
        frame_cache::deallocate(again, 96);
        CHECK(frame_cache::kept(96) == 0);
        again = frame_cache::allocate(96);
    }
    CHECK(other != again);
    frame_cache::deallocate(again, 96);
    frame_cache::deallocate(other, 160);
    drain({96, 160});
}

TEST_CASE("frame_cache: a rare frame keeps its slot, the common frames share the rest, and the overflow is freed",
          "[coro]")
{
    constexpr std::size_t common = 128;
    constexpr std::size_t rare = 4096;  // stream_events, query_database: a large frame made now and then
    if constexpr (!frame_cache::recycles) {
        // Under a sanitizer nothing is kept, the rare frame no more than the others.
        frame_cache::deallocate(frame_cache::allocate(rare), rare);
        CHECK(frame_cache::kept(rare) == 0);
        return;
    }
    drain({common, rare});
    void* rare_block = frame_cache::allocate(rare);
    frame_cache::deallocate(rare_block, rare);

    // A request nests up to four common frames; with the rare one kept, three of them are kept and one is freed.
    std::vector<void*> nested;
    for (std::size_t i = 0; i < frame_cache::slot_count; ++i)
        nested.push_back(frame_cache::allocate(common));
    for (void* block : nested)
        frame_cache::deallocate(block, common);
    CHECK(frame_cache::kept(common) == frame_cache::slot_count - 1);
    CHECK(frame_cache::kept(rare) == 1);
    // The next request's frames come from the slots, as many as were kept, each a block of the last request's.
    const std::set<void*> before(nested.begin(), nested.end());
    std::vector<void*> next;
    for (std::size_t i = 0; i + 1 < frame_cache::slot_count; ++i) {
        next.push_back(frame_cache::allocate(common));
        CHECK(before.count(next.back()) == 1);
    }
    CHECK(frame_cache::kept(common) == 0);
    // ...and the rare frame's block waited in its slot for a frame of its size.
    CHECK(frame_cache::allocate(rare) == rare_block);
    CHECK(frame_cache::kept(rare) == 0);
    frame_cache::deallocate(rare_block, rare);
    for (void* block : next)
        frame_cache::deallocate(block, common);
    drain({common, rare});
}
