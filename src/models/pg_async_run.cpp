// The movies' asynchronous exchange for fiber and loop: its state's descriptor and how the exchange ends.
#include "pg_async_run.hpp"

namespace execbench::models {

movie_database::op_state::op_state(movie_database& database, executor_type executor) : db(database), timer(executor) {}

movie_database::op_state::~op_state()
{
    // Reached with something held only when the operation was destroyed unfinished (its io_context went away).
    watch->disarm();
    release_descriptor();
    if (waiting)
        link = db.pool_->withdraw(waiter);
    if (link != nullptr)
        db.settle(job, link, false);
}

movie_database::op_state::descriptor_type& movie_database::op_state::descriptor_for(int fd, bool fresh)
{
    // While connecting, libpq may close a socket and open another under the same number: register anew each time.
    if (descriptor && (fresh || descriptor->native_handle() != fd))
        release_descriptor();
    if (!descriptor)
        descriptor.emplace(timer.get_executor(), fd);
    return *descriptor;
}

void movie_database::op_state::release_descriptor() noexcept
{
    // release(), not close(): the socket belongs to libpq.
    if (descriptor)
        descriptor->release();
    descriptor.reset();
}

void movie_database::settle(op_state& s)
{
    s.watch->disarm();
    s.timer.cancel();
    s.release_descriptor();
    // The deadline can shut the socket down on another carrier just as the answer completes on this one: libpq then
    // reports an idle, healthy connection whose socket is gone, and the next request on it would fail with 503.
    if (s.link != nullptr && s.watch->shut())
        s.link->close();
    settle(s.job, s.link, s.watch->fired());
}

}  // namespace execbench::models
