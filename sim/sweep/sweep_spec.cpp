#include "sim/sweep/sweep_spec.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iomanip>
#include <map>
#include <memory>
#include <set>
#include <sstream>

#include "sim/core/error.h"
#include "sim/io/file_set.h"
#include "sim/yaml/yaml_file.h"
#include "sim/yaml/yaml_reader.h"

namespace trainsim {

namespace {

// At most this many points in a grid: each point is a process and a results directory.
constexpr std::int64_t kMaxPoints = 1'000'000;

// A value as --set takes it: a scalar's text, anything else as flow YAML.
std::string value_text(const ConfigNode& node) {
  if (node.is_scalar()) return node.as_string();
  YAML::Emitter out;
  out << YAML::Flow << node.yaml();
  return out.c_str();
}

std::vector<std::string> values_of(const ConfigNode& node) {
  if (!node.is_sequence()) node.fail("expected a list of values, got " + node.describe());
  std::vector<std::string> out;
  for (const ConfigNode& v : node.as_sequence()) out.push_back(value_text(v));
  if (out.empty()) node.fail("an axis needs at least one value");
  return out;
}

// range: {from, to, step}: from, from + step, ... up to and including `to`.
std::vector<std::string> range_of(const ConfigNode& node) {
  ConfigMap m = node.as_map();
  m.allow_only({"from", "to", "step"});
  const double from = m.require("from").as_double(), to = m.require("to").as_double();
  double step = 1;
  if (auto v = m.get("step")) step = v->as_double_positive();
  if (to < from) node.fail("the range ends (" + std::to_string(to) + ") before it starts");
  const double count = std::floor((to - from) / step + 1e-9) + 1;
  if (count > static_cast<double>(kMaxPoints)) node.fail("the range has too many values");
  std::vector<std::string> out;
  // Integers are written as integers while doubles hold them exactly (a range from 1e300
  // once converted a double past int64 to an integer).
  const bool integral = from == std::floor(from) && step == std::floor(step) &&
                        std::fabs(from) <= 9007199254740992.0 &&
                        std::fabs(to) <= 9007199254740992.0;
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(count); ++i) {
    const double v = from + static_cast<double>(i) * step;
    std::ostringstream s;
    if (integral)
      s << static_cast<std::int64_t>(v);
    else
      s << std::setprecision(17) << v;  // every value its own text: ids must not collide
    out.push_back(s.str());
  }
  return out;
}

// "a, b and c" of the texts, for messages.
std::string listing(const std::vector<std::string>& texts) {
  std::string out;
  for (std::size_t i = 0; i < texts.size(); ++i)
    out += (i == 0 ? "" : i + 1 == texts.size() ? " and " : ", ") + texts[i];
  return out;
}

// One row of a zip (or the value of a single-key axis) as written: "8" or "[8, 8.0]".
std::string row_text(const std::vector<std::string>& row) {
  if (row.size() == 1) return row[0];
  std::string out = "[";
  for (std::size_t i = 0; i < row.size(); ++i) out += (i ? ", " : "") + row[i];
  return out + "]";
}

std::string axis_name(const SweepAxis& axis) {
  std::string out;
  for (const std::string& k : axis.keys) out += (out.empty() ? "" : ", ") + k;
  return out;
}

// Two values that are the same number are one point twice (the same run, two ids): an error
// that names them, rather than a merge that would drop one spelling silently.
void check_distinct(const SweepAxis& axis, const ConfigNode& at) {
  std::map<std::vector<std::string>, std::vector<std::string>> spellings;
  std::vector<std::vector<std::string>> order;
  for (const auto& row : axis.values) {
    std::vector<std::string> key;
    for (const std::string& v : row) key.push_back(canonical_value(v));
    auto& texts = spellings[key];
    if (texts.empty()) order.push_back(key);
    texts.push_back(row_text(row));
  }
  for (const auto& key : order) {
    const std::vector<std::string>& texts = spellings[key];
    if (texts.size() < 2) continue;
    at.fail("axis '" + axis_name(axis) + "' lists the same value " +
            (texts.size() == 2 ? std::string("twice") : std::to_string(texts.size()) + " times") +
            ": " + listing(texts) + " (each would run the same point again)");
  }
}

}  // namespace

std::string canonical_value(const std::string& text) {
  // Numbers as trainsim's config reader takes them (sim/yaml/yaml_reader.cpp): decimal or
  // exponent notation, nothing else (no inf, nan, hex), so a string value is never a number.
  bool numeric = !text.empty();
  bool digit = false, integer = true;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c >= '0' && c <= '9') {
      digit = true;
    } else if (c == '+' || c == '-') {
      if (i > 0) integer = false;
    } else if (c == '.' || c == 'e' || c == 'E') {
      integer = false;
    } else {
      numeric = false;
    }
  }
  if (!numeric || !digit) return text;
  const std::size_t start = text[0] == '+' ? 1 : 0;
  if (integer) {
    // Exact for any length: the sign, then the digits without leading zeros.
    const bool negative = text[start] == '-';
    std::size_t first = start + (negative ? 1 : 0);
    while (first + 1 < text.size() && text[first] == '0') ++first;
    const std::string digits = text.substr(first);
    return (negative && digits != "0" ? "-" : "") + digits;
  }
  double v = 0;
  const auto [end, ec] = std::from_chars(text.data() + start, text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v)) return text;
  char buf[40];
  if (v == std::floor(v) && std::fabs(v) < 9.2e18) {
    std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(v));
  } else {
    const auto [e, ec2] = std::to_chars(buf, buf + sizeof buf, v);  // shortest round trip
    *e = '\0';
    (void)ec2;
  }
  return buf;
}

bool same_value(const std::string& a, const std::string& b) {
  return a == b || canonical_value(a) == canonical_value(b);
}

std::string baseline_text(const SweepSpec& s) {
  std::string out;
  for (const auto& [k, v] : s.baseline) out += (out.empty() ? "" : ", ") + k + ": " + v;
  return "{" + out + "}";
}

std::vector<std::string> SweepSpec::keys() const {
  std::vector<std::string> out;
  for (const SweepAxis& a : axes) out.insert(out.end(), a.keys.begin(), a.keys.end());
  return out;
}

SweepSpec load_sweep(const std::string& path) {
  SweepSpec s;
  s.source = path;
  auto origin = std::make_shared<ConfigOrigin>();
  origin->file = path;
  ConfigNode top(load_yaml_file(path, "sweep"), "", origin);  // names a missing file
  s.text = read_text_file(path);
  ConfigMap m = top.as_map();
  m.allow_only({"experiment", "set", "axes", "baseline", "search"});
  const ConfigNode exp = m.require("experiment");
  std::filesystem::path e = exp.as_nonempty_string();
  if (e.is_relative()) e = std::filesystem::path(path).parent_path() / e;
  if (!std::filesystem::is_regular_file(e)) exp.fail("no experiment file '" + e.string() + "'");
  s.experiment = e.lexically_normal().string();
  if (auto v = m.get("set"))
    for (const ConfigNode& o : v->as_sequence()) s.set.push_back(o.as_nonempty_string());

  const ConfigNode axes = m.require("axes");
  std::set<std::string> seen;
  for (const ConfigNode& a : axes.as_sequence()) {
    ConfigMap am = a.as_map();
    SweepAxis axis;
    if (auto zip = am.get("zip")) {
      am.allow_only({"zip"});
      ConfigMap zm = zip->as_map();
      std::vector<std::vector<std::string>> columns;
      for (const auto& key : zip->yaml()) {
        if (!key.first.IsScalar()) zip->fail("a zip's keys are config keys");
        const std::string k = key.first.as<std::string>();
        axis.keys.push_back(k);
        columns.push_back(values_of(*zm.get(k)));
        if (columns.back().size() != columns.front().size())
          zm.get(k)->fail("a zip's lists must have the same length: '" + axis.keys.front() +
                          "' has " + std::to_string(columns.front().size()) + " values, '" + k +
                          "' " + std::to_string(columns.back().size()));
      }
      if (axis.keys.empty()) zip->fail("a zip needs at least one key");
      for (std::size_t i = 0; i < columns.front().size(); ++i) {
        axis.values.emplace_back();
        for (const auto& c : columns) axis.values.back().push_back(c[i]);
      }
    } else {
      am.allow_only({"key", "values", "range"});
      axis.keys.push_back(am.require("key").as_nonempty_string());
      auto values = am.get("values");
      auto range = am.get("range");
      if (values && range) a.fail("an axis has `values` or `range`, not both");
      if (!values && !range) a.fail("an axis needs `values` or `range`");
      for (const std::string& v : values ? values_of(*values) : range_of(*range))
        axis.values.push_back({v});
    }
    for (const std::string& k : axis.keys)
      if (!seen.insert(k).second) a.fail("key '" + k + "' is on two axes");
    check_distinct(axis, a);
    s.axes.push_back(axis);
  }
  if (s.axes.empty()) axes.fail("a sweep needs at least one axis");
  double points = 1;
  for (const SweepAxis& a : s.axes) points *= static_cast<double>(a.size());

  if (auto b = m.get("baseline")) {
    ConfigMap bm = b->as_map();
    for (const auto& kv : b->yaml()) {
      if (!kv.first.IsScalar()) b->fail("baseline keys are config keys");
      const std::string k = kv.first.as<std::string>();
      if (!seen.count(k)) bm.get(k)->fail("baseline key '" + k + "' is not on any axis");
      s.baseline.emplace_back(k, value_text(*bm.get(k)));
    }
    // Some row of every axis must carry the baseline's values of its keys (a zip's together),
    // or no point is the baseline and the speedup column would stay empty.
    for (const SweepAxis& axis : s.axes) {
      // Per key of the axis: the baseline's value, or null if the baseline leaves it free.
      std::vector<const std::string*> wanted(axis.keys.size(), nullptr);
      for (std::size_t i = 0; i < axis.keys.size(); ++i)
        for (const auto& [bk, bv] : s.baseline)
          if (bk == axis.keys[i]) wanted[i] = &bv;
      if (std::all_of(wanted.begin(), wanted.end(), [](const auto* w) { return w == nullptr; }))
        continue;
      const bool found = std::any_of(axis.values.begin(), axis.values.end(), [&](const auto& row) {
        for (std::size_t i = 0; i < row.size(); ++i)
          if (wanted[i] != nullptr && !same_value(row[i], *wanted[i])) return false;
        return true;
      });
      if (!found) {
        // The axis's values, the first eight of a long one.
        constexpr std::size_t kShown = 8;
        std::vector<std::string> rows;
        for (std::size_t i = 0; i < axis.values.size() && i < kShown; ++i)
          rows.push_back(row_text(axis.values[i]));
        if (axis.values.size() > kShown)
          rows.push_back(std::to_string(axis.values.size() - kShown) + " more");
        b->fail("baseline " + baseline_text(s) + " matches no point of the sweep: axis '" +
                axis_name(axis) + "' takes " + listing(rows));
      }
    }
  }
  if (auto v = m.get("search")) {
    ConfigMap sm = v->as_map();
    sm.allow_only({"mode", "budget", "seed"});
    if (auto mode = sm.get("mode")) s.mode = mode->as_choice({"grid", "random"});
    if (auto b = sm.get("budget")) s.budget = b->as_int64_in({1, kMaxPoints});
    if (auto seed = sm.get("seed")) s.seed = seed->as_uint64();
    if (s.mode == "random" && s.budget == 0)
      v->fail("search: {mode: random} needs a budget (points to sample)");
    if (s.mode == "grid" && s.budget != 0) v->fail("a budget is for search: {mode: random}");
  }
  // A grid runs every point; a random search draws from any space whose size fits 62 bits.
  if (s.mode == "grid" && points > static_cast<double>(kMaxPoints))
    axes.fail("the axes span " + std::to_string(static_cast<long long>(points)) +
              " points, more than " + std::to_string(kMaxPoints) +
              " (use search: {mode: random, budget: N})");
  if (points > 4.0e18) axes.fail("the axes span more than 4e18 points");
  return s;
}

}  // namespace trainsim
