// The deadline of one asynchronous movies exchange (`db_watch`): the timer's thread ends the exchange's pending wait
// by shutting the libpq socket down, and the exchange learns afterwards whether that happened.
#pragma once

#include <mutex>

namespace execbench::models::detail {

/// The deadline of one asynchronous exchange: when it passes, the socket is shut down so the pending wait ends at
/// once (from the timer's thread, which may not touch the descriptor object itself).
class db_watch {
public:
    /// Watches `fd` from now on; false when the deadline has already passed.
    bool arm(int fd);
    /// Stops watching before libpq may close or swap the socket.
    void disarm();
    /// The deadline passed: shuts the watched socket down.
    void fire();
    /// True once the deadline passed.
    bool fired();
    /// True when fire() shut a socket down: its connection cannot be used again, whatever libpq's state says.
    bool shut();

private:
    std::mutex mutex_;
    int fd_ = -1;
    bool fired_ = false;
    bool shut_ = false;
};

}  // namespace execbench::models::detail
