#include "execbench/endpoints/movies.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>

namespace execbench::endpoints {

namespace {

using json = nlohmann::json;

constexpr std::size_t max_title_bytes = 500;
constexpr std::size_t max_name_bytes = 200;
constexpr std::size_t max_genre_bytes = 50;
constexpr std::int64_t min_year = 1870;
constexpr std::int64_t max_year = 2100;
// Echoed parts of the body (parser messages, unknown keys) are cut so an error cannot be as large as the body.
constexpr std::size_t max_echo_bytes = 120;

// Cuts `text` to at most `limit` bytes without splitting a UTF-8 sequence.
std::string clip(std::string_view text, std::size_t limit = max_echo_bytes)
{
    if (text.size() <= limit)
        return std::string(text);
    std::size_t cut = limit;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80)
        --cut;
    return std::string(text.substr(0, cut)) + "...";
}

// Where a body stops being JSON, in the client's terms: "at line 1, column 2 (byte 2), after '{'". The JSON library's
// own text ("[json.exception.parse_error.101] ... syntax error while parsing ...") names its internals, not the body.
std::string where_json_fails(std::string_view body, std::size_t byte)
{
    if (byte == 0 || byte > body.size())
        return body.empty() ? "the body is empty" : "it ends too early";
    const auto read = body.substr(0, byte);
    const auto line = 1 + std::count(read.begin(), read.end(), '\n');
    const auto line_start = read.rfind('\n');
    const auto column = byte - (line_start == std::string_view::npos ? 0 : line_start + 1);
    const auto after = read.substr(read.size() > 20 ? read.size() - 20 : 0);
    std::string printable;
    for (char c : after)
        printable.push_back(static_cast<unsigned char>(c) < 0x20 ? '?' : c);
    return "at line " + std::to_string(line) + ", column " + std::to_string(column) + " (byte " +
           std::to_string(byte) + "), after '" + clip(printable, 40) + "'";
}

// Nesting depth of arrays and objects, ignoring brackets inside strings; stops early once past `limit`. The JSON
// need not be valid: the parser reports that afterwards.
std::size_t nesting_depth(std::string_view body, std::size_t limit) noexcept
{
    std::size_t depth = 0;
    std::size_t deepest = 0;
    bool in_string = false;
    for (std::size_t i = 0; i < body.size(); ++i) {
        const char c = body[i];
        if (in_string) {
            if (c == '\\')
                ++i;
            else if (c == '"')
                in_string = false;
        } else if (c == '"') {
            in_string = true;
        } else if (c == '[' || c == '{') {
            deepest = std::max(deepest, ++depth);
            if (deepest > limit)
                return deepest;
        } else if ((c == ']' || c == '}') && depth > 0) {
            --depth;
        }
    }
    return deepest;
}

bool is_real_date(std::string_view text) noexcept
{
    if (text.size() != 10 || text[4] != '-' || text[7] != '-')
        return false;
    int parts[3] = {0, 0, 0};
    const std::array<std::pair<std::size_t, std::size_t>, 3> fields{{{0, 4}, {5, 2}, {8, 2}}};
    for (std::size_t f = 0; f < fields.size(); ++f) {
        for (std::size_t i = fields[f].first; i < fields[f].first + fields[f].second; ++i) {
            if (text[i] < '0' || text[i] > '9')
                return false;
            parts[f] = parts[f] * 10 + (text[i] - '0');
        }
    }
    const std::chrono::year_month_day date{std::chrono::year{parts[0]},
                                           std::chrono::month{static_cast<unsigned>(parts[1])},
                                           std::chrono::day{static_cast<unsigned>(parts[2])}};
    return parts[0] >= 1 && date.ok();
}

bool is_upper_word(std::string_view text) noexcept
{
    if (text.empty())
        return false;
    for (const char c : text) {
        if (!((c >= 'A' && c <= 'Z') || c == '_'))
            return false;
    }
    return true;
}

std::optional<std::int64_t> integer_in(const json& value, std::int64_t min, std::int64_t max)
{
    std::int64_t n = 0;
    if (value.is_number_unsigned()) {
        const auto u = value.get<std::uint64_t>();
        if (u > static_cast<std::uint64_t>(max))
            return std::nullopt;
        n = static_cast<std::int64_t>(u);
    } else if (value.is_number_integer()) {
        n = value.get<std::int64_t>();
    } else {
        return std::nullopt;
    }
    if (n < min || n > max)
        return std::nullopt;
    return n;
}

bool is_bounded_string(const json& value, std::size_t max_bytes, bool allow_empty)
{
    if (!value.is_string())
        return false;
    const auto& s = value.get_ref<const json::string_t&>();
    return s.size() <= max_bytes && (allow_empty || !s.empty());
}

// Fails on the first key of `object` that is not in `known` (and not in `ignored`).
std::optional<error> reject_unknown(const json& object, const std::string& path,
                                    std::initializer_list<std::string_view> known,
                                    std::initializer_list<std::string_view> ignored = {})
{
    for (const auto& item : object.items()) {
        const std::string& key = item.key();
        bool listed = false;
        for (const auto k : known)
            listed = listed || key == k;
        for (const auto k : ignored)
            listed = listed || key == k;
        if (!listed)
            return fail(path + "." + clip(key) + ": unknown field");
    }
    return std::nullopt;
}

// The member `key` of `object`, or null when absent.
const json& member(const json& object, std::string_view key)
{
    static const json null_value;
    const auto it = object.find(key);
    return it == object.end() ? null_value : *it;
}

std::string name_rule(bool allow_empty)
{
    return allow_empty ? "a string of at most " + std::to_string(max_name_bytes) + " bytes"
                       : "required, a non-empty string of at most " + std::to_string(max_name_bytes) + " bytes";
}

result<json> check_person(const json& in, const std::string& path)
{
    if (!in.is_object())
        return fail(path + ": must be a person object {firstName, lastName, birthday}");
    if (auto e = reject_unknown(in, path, {"firstName", "lastName", "birthday"}))
        return *e;
    json out = json::object();
    const auto& first_name = member(in, "firstName");
    if (first_name.is_null())
        out["firstName"] = "";
    else if (is_bounded_string(first_name, max_name_bytes, true))
        out["firstName"] = first_name;
    else
        return fail(path + ".firstName: " + name_rule(true));
    const auto& last_name = member(in, "lastName");
    if (!is_bounded_string(last_name, max_name_bytes, false))
        return fail(path + ".lastName: " + name_rule(false));
    out["lastName"] = last_name;
    const auto& birthday = member(in, "birthday");
    if (!birthday.is_null() && !(birthday.is_string() && is_real_date(birthday.get_ref<const std::string&>())))
        return fail(path + ".birthday: null or a real date YYYY-MM-DD");
    out["birthday"] = birthday;
    return out;
}

result<json> check_character(const json& in, const std::string& path)
{
    if (!in.is_object())
        return fail(path + ": must be a character object {actor, name}");
    if (auto e = reject_unknown(in, path, {"actor", "name"}))
        return *e;
    json out = json::object();
    const auto& actor = member(in, "actor");
    if (actor.is_null())
        return fail(path + ".actor: required, a person object {firstName, lastName, birthday}");
    auto person = check_person(actor, path + ".actor");
    if (!person)
        return person.err();
    out["actor"] = std::move(*person);
    const auto& name = member(in, "name");
    if (!is_bounded_string(name, max_name_bytes, false))
        return fail(path + ".name: " + name_rule(false));
    out["name"] = name;
    return out;
}

result<json> check_award(const json& in, const std::string& path)
{
    if (!in.is_object())
        return fail(path + ": must be an award object {name, year}");
    if (auto e = reject_unknown(in, path, {"name", "year"}))
        return *e;
    json out = json::object();
    const auto& name = member(in, "name");
    if (!is_bounded_string(name, max_name_bytes, false))
        return fail(path + ".name: " + name_rule(false));
    out["name"] = name;
    const auto year = integer_in(member(in, "year"), min_year, max_year);
    if (!year)
        return fail(path + ".year: required, an integer in " + std::to_string(min_year) + ".." +
                    std::to_string(max_year));
    out["year"] = *year;
    return out;
}

// Validates the array member `key` with `check` per element. `required` means present and non-empty; otherwise
// absent and null both give [].
template <class Check>
result<json> check_list(const json& movie, std::string_view key, const std::string& path, bool required,
                        std::size_t max_items, std::string_view noun, Check check)
{
    const auto& list = member(movie, key);
    const auto field = path + "." + std::string(key);
    const auto rule = std::string(required ? "required, a non-empty array" : "an array") + " of at most " +
                      std::to_string(max_items) + " " + std::string(noun);
    if (list.is_null() && !required)
        return json::array();
    if (!list.is_array() || list.size() > max_items || (required && list.empty()))
        return fail(field + ": " + rule);
    json out = json::array();
    for (std::size_t i = 0; i < list.size(); ++i) {
        auto item = check(list[i], field + "[" + std::to_string(i) + "]");
        if (!item)
            return item.err();
        out.push_back(std::move(*item));
    }
    return out;
}

result<json> check_movie(const json& in, const std::string& path)
{
    if (!in.is_object())
        return fail(path + ": must be a movie object");
    if (auto e = reject_unknown(
            in, path, {"title", "releaseYear", "genre", "rating", "characters", "directors", "writers", "awards"},
            {"id"}))
        return *e;
    json out = json::object();

    const auto& title = member(in, "title");
    if (!is_bounded_string(title, max_title_bytes, false))
        return fail(path + ".title: required, a non-empty string of at most " + std::to_string(max_title_bytes) +
                    " bytes");
    out["title"] = title;

    const auto year = integer_in(member(in, "releaseYear"), min_year, max_year);
    if (!year)
        return fail(path + ".releaseYear: required, an integer in " + std::to_string(min_year) + ".." +
                    std::to_string(max_year));
    out["releaseYear"] = *year;

    const auto& genre = member(in, "genre");
    if (!is_bounded_string(genre, max_genre_bytes, false) || !is_upper_word(genre.get_ref<const std::string&>()))
        return fail(path + ".genre: required, an upper-case word [A-Z_]+ of at most " +
                    std::to_string(max_genre_bytes) + " bytes");
    out["genre"] = genre;

    const auto& rating = member(in, "rating");
    if (!rating.is_null()) {
        // NaN and infinities cannot come from JSON text, so the comparisons below are total.
        if (!rating.is_number() || rating.get<double>() < 0.0 || rating.get<double>() > 10.0)
            return fail(path + ".rating: a number in 0..10");
    }
    out["rating"] = rating;

    auto characters =
        check_list(in, "characters", path, false, max_characters_per_movie, "characters", check_character);
    if (!characters)
        return characters.err();
    out["characters"] = std::move(*characters);
    auto directors = check_list(in, "directors", path, true, max_directors_per_movie, "persons", check_person);
    if (!directors)
        return directors.err();
    out["directors"] = std::move(*directors);
    auto writers = check_list(in, "writers", path, false, max_writers_per_movie, "persons", check_person);
    if (!writers)
        return writers.err();
    out["writers"] = std::move(*writers);
    auto awards = check_list(in, "awards", path, false, max_awards_per_movie, "awards", check_award);
    if (!awards)
        return awards.err();
    out["awards"] = std::move(*awards);
    return out;
}

void append_value(const json& value, std::string& out)
{
    out += value.dump();
}

void append_person(const json& person, std::string& out)
{
    out += "{\"firstName\":";
    append_value(person["firstName"], out);
    out += ",\"lastName\":";
    append_value(person["lastName"], out);
    out += ",\"birthday\":";
    append_value(person["birthday"], out);
    out += '}';
}

template <class Append>
void append_list(const json& list, std::string& out, Append append)
{
    out += '[';
    for (std::size_t i = 0; i < list.size(); ++i) {
        if (i > 0)
            out += ',';
        append(list[i], out);
    }
    out += ']';
}

void append_character(const json& character, std::string& out)
{
    out += "{\"actor\":";
    append_person(character["actor"], out);
    out += ",\"name\":";
    append_value(character["name"], out);
    out += '}';
}

void append_award(const json& award, std::string& out)
{
    out += "{\"name\":";
    append_value(award["name"], out);
    out += ",\"year\":";
    append_value(award["year"], out);
    out += '}';
}

}  // namespace

result<nlohmann::json> parse_movies(std::string_view body)
{
    // nlohmann's parser keeps its own stack, but a hostile "[[[[..." would still cost memory per level for nothing.
    if (nesting_depth(body, max_body_depth) > max_body_depth)
        return fail("body: nested deeper than " + std::to_string(max_body_depth) + " levels");
    json document;
    try {
        document = json::parse(body);
    } catch (const json::parse_error& e) {
        return fail("body: not valid JSON: " + where_json_fails(body, e.byte));
    } catch (const json::exception&) {
        // out_of_range, for a number too large for a double ("1e400").
        return fail("body: not valid JSON: a number out of the range of a double");
    }

    json batch = json::array();
    if (document.is_object()) {
        auto movie = check_movie(document, "movie");
        if (!movie)
            return movie.err();
        batch.push_back(std::move(*movie));
        return batch;
    }
    if (!document.is_array())
        return fail("body: must be a movie object or an array of movies");
    if (document.empty())
        return fail("body: must not be an empty array");
    if (document.size() > max_movies_per_post)
        return fail("body: at most " + std::to_string(max_movies_per_post) + " movies per request");
    for (std::size_t i = 0; i < document.size(); ++i) {
        auto movie = check_movie(document[i], "movies[" + std::to_string(i) + "]");
        if (!movie)
            return movie.err();
        batch.push_back(std::move(*movie));
    }
    return batch;
}

void append_movie_json(const nlohmann::json& movie, std::string& out)
{
    out += "{\"title\":";
    append_value(movie["title"], out);
    out += ",\"releaseYear\":";
    append_value(movie["releaseYear"], out);
    out += ",\"genre\":";
    append_value(movie["genre"], out);
    out += ",\"rating\":";
    append_value(movie["rating"], out);
    out += ",\"characters\":";
    append_list(movie["characters"], out, append_character);
    out += ",\"directors\":";
    append_list(movie["directors"], out, append_person);
    out += ",\"writers\":";
    append_list(movie["writers"], out, append_person);
    out += ",\"awards\":";
    append_list(movie["awards"], out, append_award);
    out += '}';
}

std::string ascii_lower(std::string_view text)
{
    std::string out(text);
    for (auto& c : out) {
        if (c >= 'A' && c <= 'Z')
            c = static_cast<char>(c - 'A' + 'a');
    }
    return out;
}

std::vector<std::string> director_keys(const nlohmann::json& movie)
{
    std::vector<std::string> names;
    for (const auto& director : movie["directors"]) {
        auto name = ascii_lower(director["lastName"].get_ref<const std::string&>());
        if (std::find(names.begin(), names.end(), name) == names.end())
            names.push_back(std::move(name));
    }
    return names;
}

void append_with_id(std::int64_t id, std::string_view doc, std::string& out)
{
    out += "{\"id\":";
    out += std::to_string(id);
    out += ',';
    out.append(doc.substr(1));
}

}  // namespace execbench::endpoints
