// The per-thread state Boost.Context's ucontext backend declares but Debian's libboost_context does not define.
//
// Sanitizer builds switch Boost.Context to its header-only ucontext backend (BOOST_USE_UCONTEXT) so that
// BOOST_USE_ASAN / BOOST_USE_TSAN can announce every stack switch to the sanitizer. That backend expects the
// library to define where each thread keeps its current activation record; Debian builds the library with the
// fcontext backend, which has no such symbol. We define it here, only in those builds.
#if defined(BOOST_USE_UCONTEXT)

#include <boost/context/fiber.hpp>

namespace boost::context::detail {

namespace {

// The record of whatever runs on this thread right now: a fiber, or the thread's own (main) context.
thread_local fiber_activation_record* current_record = nullptr;

}  // namespace

fiber_activation_record_initializer::fiber_activation_record_initializer() noexcept
{
    // The thread's own context gets a record the first time the thread touches a fiber.
    if (current_record == nullptr)
        current_record = new fiber_activation_record();
}

fiber_activation_record_initializer::~fiber_activation_record_initializer()
{
    if (current_record != nullptr && current_record->is_main_context()) {
        delete current_record;
        current_record = nullptr;
    }
}

fiber_activation_record*& fiber_activation_record::current() noexcept
{
    thread_local fiber_activation_record_initializer initializer;
    return current_record;
}

}  // namespace boost::context::detail

#endif
