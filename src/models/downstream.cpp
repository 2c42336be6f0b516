#include "downstream.hpp"

#include "downstream_beast.hpp"
#include "downstream_curl.hpp"

#include <boost/asio/use_future.hpp>

namespace execbench::models {

http::call_outcome downstream_client::get(std::string_view target)
{
    return async_get(target, boost::asio::use_future).get();
}

std::unique_ptr<downstream_client> make_downstream_client(const downstream_setup& setup)
{
    using own = boost::asio::io_context::executor_type;
    using strand = boost::asio::strand<own>;
    const bool reuse = setup.options.client == downstream_client_kind::pooled;
    switch (setup.options.client) {
    case downstream_client_kind::pooled:
    case downstream_client_kind::per_call:
        if (setup.shared)
            return std::make_unique<beast_client<strand>>(setup, reuse);
        return std::make_unique<beast_client<own>>(setup, reuse);
    case downstream_client_kind::curl: return std::make_unique<curl_client>(setup);
    }
    return nullptr;
}

}  // namespace execbench::models
