// sim/io/json_writer.h writes what nlohmann's dump() writes for the same tree: the same bytes
// for every kind of value, including numbers in both of nlohmann's layouts (plain and
// exponent), negative zero, non-finite numbers and strings that need escaping.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/io/json_writer.h"

namespace trainsim {

TEST_CASE("JsonWriter writes nlohmann's compact text for the same tree", "[json]") {
  std::mt19937_64 rng(20261130);
  std::uniform_real_distribution<double> mantissa(-10.0, 10.0);
  std::uniform_int_distribution<int> exponent(-30, 30);
  const double specials[] = {0.0,
                             -0.0,
                             1.0,
                             1e15,
                             1e16,
                             1e-5,
                             1e-4,
                             123456789012345678.0,
                             0.1 + 0.2,
                             std::numeric_limits<double>::max(),
                             std::numeric_limits<double>::denorm_min(),
                             std::numeric_limits<double>::quiet_NaN(),
                             std::numeric_limits<double>::infinity()};
  const std::string strings[] = {"",
                                 "plain",
                                 "quote \" and \\ backslash",
                                 "tab\tnew\nline\r",
                                 "\b\f",
                                 std::string("nul\0x", 5),
                                 "\x01\x1f",
                                 "caf\xc3\xa9 \xe2\x82\xac"};
  nlohmann::ordered_json tree = nlohmann::ordered_json::object();
  JsonWriter w;
  w.begin_object();
  w.key("empty_array").begin_array().end_array();
  tree["empty_array"] = nlohmann::ordered_json::array();
  w.key("empty_object").begin_object().end_object();
  tree["empty_object"] = nlohmann::ordered_json::object();
  w.key("numbers").begin_array();
  nlohmann::ordered_json& numbers = tree["numbers"] = nlohmann::ordered_json::array();
  for (double v : specials) {
    w.value(v);
    numbers.push_back(v);
  }
  for (int i = 0; i < 2000; ++i) {
    const double v = mantissa(rng) * std::pow(10.0, exponent(rng));
    w.value(v);
    numbers.push_back(v);
  }
  const std::int64_t ints[] = {0, -1, 42, std::numeric_limits<std::int64_t>::min(),
                               std::numeric_limits<std::int64_t>::max()};
  for (std::int64_t v : ints) {
    w.value(v);
    numbers.push_back(v);
  }
  w.value(std::numeric_limits<std::uint64_t>::max());
  numbers.push_back(std::numeric_limits<std::uint64_t>::max());
  w.end_array();
  w.key("strings").begin_array();
  nlohmann::ordered_json& texts = tree["strings"] = nlohmann::ordered_json::array();
  for (const std::string& s : strings) {
    w.value(s);
    texts.push_back(s);
  }
  w.end_array();
  w.key("nested").begin_object().field("yes", true).field("no", false);
  w.key("deeper").begin_array().begin_object().field("k \"q\"", 1).end_object().end_array();
  w.end_object();
  tree["nested"]["yes"] = true;
  tree["nested"]["no"] = false;
  tree["nested"]["deeper"] = nlohmann::ordered_json::array({{{"k \"q\"", 1}}});
  w.end_object();
  const std::string text = w.take();
  CHECK(text == tree.dump());
  // Its numbers read back as what was written.
  const auto back = nlohmann::ordered_json::parse(text);
  CHECK(back["numbers"][0].get<double>() == 0.0);
  CHECK(back["numbers"].size() == tree["numbers"].size());
}

TEST_CASE("JsonWriter refuses text with a container left open or a key without a value", "[json]") {
  JsonWriter open;
  open.begin_object().key("a").begin_array();
  CHECK_THROWS_AS(open.take(), std::logic_error);
  JsonWriter dangling;
  dangling.begin_object().key("a");
  CHECK_THROWS_AS(dangling.end_object(), std::logic_error);
  JsonWriter none;
  CHECK_THROWS_AS(none.end_array(), std::logic_error);
}

TEST_CASE("JsonWriter rejects text that is not UTF-8, as nlohmann does", "[json]") {
  JsonWriter w;
  w.begin_array();
  CHECK_THROWS_AS(w.value(std::string("\xff\xfe")), nlohmann::json::type_error);
}

}  // namespace trainsim
