// sim/yaml/yaml_emit.h: a Plain scalar is written exactly as yaml-cpp writes the same string,
// in every place a config puts one (block and flow maps, keys and values, block and flow
// sequences), whether the quick test clears it or yaml-cpp's own test decides.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "sim/core/rng.h"
#include "sim/yaml/yaml_emit.h"

using namespace trainsim;

namespace {

// The same document with `s` in each place, written once as std::string and once as Plain.
template <class Write>
std::string document(const std::string& s, Write&& write) {
  YAML::Emitter out;
  out << YAML::BeginMap;
  out << YAML::Key;
  write(out, s);
  out << YAML::Value;
  write(out, s);
  out << YAML::Key << "flow" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key;
  write(out, s);
  out << YAML::Value;
  write(out, s);
  out << YAML::EndMap;
  out << YAML::Key << "seq" << YAML::Value << YAML::BeginSeq;
  write(out, s);
  out << YAML::Flow << YAML::BeginSeq;
  write(out, s);
  write(out, s);
  out << YAML::EndSeq << YAML::BeginMap << YAML::Key;
  write(out, s);
  out << YAML::Value;
  write(out, s);
  out << YAML::EndMap << YAML::EndSeq << YAML::EndMap;
  return out.c_str();
}

std::string by_yaml_cpp(const std::string& s) {
  return document(s, [](YAML::Emitter& out, const std::string& v) { out << v; });
}

std::string by_plain(const std::string& s) {
  return document(s, [](YAML::Emitter& out, const std::string& v) { out << Plain{v}; });
}

}  // namespace

TEST_CASE("A Plain scalar is written as yaml-cpp writes the string", "[yaml]") {
  std::vector<std::string> cases = {"name",  "features.0", "conv2d",      "N",    "-1",
                                    "-",     "+1",         "1e+20",       "0.5",  "-0.25",
                                    "inf",   "-inf",       "nan",         ".inf", "null",
                                    "Null",  "NULL",       "~",           "",     "true",
                                    "a b",   "a: b",       "a:b",         "a,b",  "a#b",
                                    "a #b",  "[x]",        "{x}",         "x?",   "?x",
                                    "'q'",   "\"q\"",      "&a",          "*a",   "!t",
                                    "%p",    "@x",         "`x",          "a\tb", "line\nbreak",
                                    "tail ", " head",      "caf\xc3\xa9", "_x",   "..."};
  cases.push_back(std::string(1025, 'a'));
  cases.push_back(std::string(1024, 'a'));
  // Random strings over the quick test's alphabet and a few characters it refuses.
  Rng rng(7);
  const std::string alphabet = "abcXYZ019_.-+ :,#?[]{}'\"&*!|>%@`\t";
  for (int i = 0; i < 3000; ++i) {
    std::string s;
    const int n = 1 + static_cast<int>(rng.below(8));
    for (int j = 0; j < n; ++j) s += alphabet[rng.below(alphabet.size())];
    cases.push_back(s);
  }
  for (const std::string& s : cases) {
    INFO("'" << s << "'");
    CHECK(by_plain(s) == by_yaml_cpp(s));
  }
}

TEST_CASE("emit_string and emit_double read back as the text and the number", "[yaml]") {
  for (const std::string s : {"null", "~", "", "vgg16", "a: b"}) {
    YAML::Emitter out;
    out << YAML::BeginMap << YAML::Key << "k" << YAML::Value;
    emit_string(out, s);
    out << YAML::EndMap;
    CHECK(YAML::Load(out.c_str())["k"].as<std::string>() == s);
  }
  for (const double v : {0.5, -1e-300, 1e+20, 3.0, 0.1}) {
    YAML::Emitter out;
    out << YAML::BeginMap << YAML::Key << "k" << YAML::Value;
    emit_double(out, v);
    out << YAML::EndMap;
    CHECK(YAML::Load(out.c_str())["k"].as<double>() == v);
  }
}
