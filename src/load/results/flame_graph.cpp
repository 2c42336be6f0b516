#include "execbench/load/results/flame_graph.hpp"

#include "execbench/core/text.hpp"
#include "execbench/load/results/csv_lines.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <sstream>

namespace execbench::load {

namespace {


constexpr double image_width = 1200;
constexpr double margin = 10;
constexpr double frame_height = 16;
constexpr double top = 44;          // title and legend
constexpr double char_width = 6.6;  // of 11 px sans-serif, for cutting labels to their box
constexpr double min_box = 0.3;     // narrower boxes are left out: invisible, and they would bloat the file

struct node {
    std::uint64_t samples = 0;
    std::map<std::string, std::unique_ptr<node>> children;  // name order, as flamegraph.pl
};

std::uint32_t name_hash(std::string_view s)
{
    std::uint32_t h = 2166136261u;
    for (unsigned char c : s)
        h = (h ^ c) * 16777619u;
    return h;
}

std::string colour(const std::string& name)
{
    auto h = name_hash(name);
    auto v = [&](int shift, int range) { return int((h >> shift) % std::uint32_t(range)); };
    int r, g, b;
    if (name.find("execbench::") != std::string::npos) {
        r = 80 + v(0, 40), g = 150 + v(8, 50), b = 220 + v(16, 35);  // the server's own code
    } else if (name.size() > 4 && name.compare(name.size() - 4, 4, "_[k]") == 0) {
        r = 230 + v(0, 25), g = 140 + v(8, 50), b = 40 + v(16, 30);  // the kernel
    } else {
        r = 205 + v(0, 50), g = 80 + v(8, 120), b = 50 + v(16, 40);
    }
    return "rgb(" + std::to_string(r) + "," + std::to_string(g) + "," + std::to_string(b) + ")";
}

std::size_t depth_of(const node& n)
{
    std::size_t d = 0;
    for (const auto& [name, child] : n.children)
        d = std::max(d, 1 + depth_of(*child));
    return d;
}

class painter {
public:
    painter(std::ostringstream& svg, double total, double height) : svg_(svg), total_(total), height_(height) {}

    void box(const std::string& name, std::uint64_t samples, double x, std::size_t level)
    {
        double w = double(samples) / total_ * (image_width - 2 * margin);
        double y = height_ - margin - double(level + 1) * frame_height;
        svg_ << "<g><title>" << xml_escape(name) << " (" << samples << " samples, " << fixed(100.0 * double(samples) / total_, 2)
             << " %)</title><rect x=\"" << fixed(x, 1) << "\" y=\"" << fixed(y, 1) << "\" width=\"" << fixed(w, 1)
             << "\" height=\"" << fixed(frame_height - 1, 1) << "\" fill=\"" << colour(name) << "\" rx=\"2\"/>";
        auto fits = static_cast<std::size_t>((w - 6) / char_width);
        if (fits >= 3) {
            auto label = name.size() <= fits ? name : name.substr(0, fits - 2) + "..";
            svg_ << "<text x=\"" << fixed(x + 3, 1) << "\" y=\"" << fixed(y + frame_height - 4.5, 1) << "\">"
                 << xml_escape(label) << "</text>";
        }
        svg_ << "</g>\n";
    }

    void children(const node& n, double x, std::size_t level)
    {
        for (const auto& [name, child] : n.children) {
            double w = double(child->samples) / total_ * (image_width - 2 * margin);
            if (w >= min_box) {
                box(name, child->samples, x, level);
                children(*child, x, level + 1);
            }
            x += w;
        }
    }

private:
    std::ostringstream& svg_;
    double total_;
    double height_;
};

}  // namespace

std::string flame_graph_svg(const folded_stacks& stacks, std::string_view title)
{
    node root;
    for (const auto& [stack, samples] : stacks) {
        root.samples += samples;
        node* at = &root;
        for (std::size_t b = 0; b <= stack.size();) {
            auto e = std::min(stack.find(';', b), stack.size());
            auto& child = at->children[stack.substr(b, e - b)];
            if (!child)
                child = std::make_unique<node>();
            child->samples += samples;
            at = child.get();
            b = e + 1;
        }
    }
    auto depth = depth_of(root);
    double height = top + double(depth + 1) * frame_height + 2 * margin;
    std::ostringstream svg;
    svg << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\""
        << fixed(image_width, 0) << "\" height=\"" << fixed(height, 0) << "\" viewBox=\"0 0 " << fixed(image_width, 0)
        << " " << fixed(height, 0) << "\" font-family=\"Verdana,DejaVu Sans,sans-serif\" font-size=\"11\">\n"
        << "<rect x=\"0\" y=\"0\" width=\"100%\" height=\"100%\" fill=\"#fdfdf6\"/>\n"
        << "<text x=\"" << fixed(image_width / 2, 0) << "\" y=\"20\" text-anchor=\"middle\" font-size=\"15\">"
        << xml_escape(title) << "</text>\n"
        << "<text x=\"" << fixed(margin, 0) << "\" y=\"36\" fill=\"#555\">" << root.samples
        << " samples; width = share of the server's CPU samples; callers below callees; blue: execbench, orange: "
           "kernel; hover a box for its name</text>\n";
    if (root.samples == 0) {
        svg << "<text x=\"" << fixed(margin, 0) << "\" y=\"" << fixed(top + 16, 0) << "\">no samples</text>\n</svg>\n";
        return svg.str();
    }
    painter paint(svg, double(root.samples), height);
    paint.box("all", root.samples, margin, 0);
    paint.children(root, margin, 1);
    svg << "</svg>\n";
    return svg.str();
}

}  // namespace execbench::load
