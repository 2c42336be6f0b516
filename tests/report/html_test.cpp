#include "execbench/report/html.hpp"

#include <catch2/catch.hpp>

using execbench::report::inline_html;

TEST_CASE("inline_html turns a page's inline markdown into HTML and escapes the rest", "[report]")
{
    CHECK(inline_html("**yes** (`p99`)") == "<strong>yes</strong> (<code>p99</code>)");
    CHECK(inline_html("[methodology](../methodology.md)").find("<a href=") == 0);
    CHECK(inline_html("a < b & c") == "a &lt; b &amp; c");
    CHECK(inline_html("no verdict: *too few trials* (2 * 3)") == "no verdict: <em>too few trials</em> (2 * 3)");
    // A table cell lists one verdict per line: the break must reach the browser as a break, not as text.
    CHECK(inline_html("loop: 2.95× (2.91–2.97)<br>tie: fiber / loop") ==
          "loop: 2.95× (2.91–2.97)<br>tie: fiber / loop");
}

TEST_CASE("a chart is shown from the file the markdown links, not copied into the page", "[report]")
{
    auto html = execbench::report::block_html("![io & more](s/io.svg)\n");
    CHECK(html == "<figure class=\"chart\" data-chart=\"s/io.svg\"><img src=\"s/io.svg\" alt=\"io &amp; more\" "
                  "loading=\"lazy\"><figcaption>io &amp; more (<a href=\"s/io.svg\">SVG</a>)</figcaption></figure>\n");
    CHECK(html.find("<svg") == std::string::npos);
}
