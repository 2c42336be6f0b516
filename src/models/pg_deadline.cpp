// The deadline of one asynchronous movies exchange: shutting its socket down from the timer's thread.
#include "pg_deadline.hpp"

#include <sys/socket.h>

namespace execbench::models::detail {

bool db_watch::arm(int fd)
{
    std::lock_guard lock(mutex_);
    fd_ = fd;
    return !fired_;
}

void db_watch::disarm()
{
    std::lock_guard lock(mutex_);
    fd_ = -1;
}

void db_watch::fire()
{
    std::lock_guard lock(mutex_);
    fired_ = true;
    // Ends the pending wait from this thread: the exchange then reads end-of-stream and closes the connection.
    if (fd_ >= 0) {
        ::shutdown(fd_, SHUT_RDWR);
        shut_ = true;
    }
}

bool db_watch::shut()
{
    std::lock_guard lock(mutex_);
    return shut_;
}

bool db_watch::fired()
{
    std::lock_guard lock(mutex_);
    return fired_;
}

}  // namespace execbench::models::detail
