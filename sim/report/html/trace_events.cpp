#include "sim/report/html/trace_events.h"

#include <map>
#include <utility>

#include <nlohmann/json.hpp>

#include "sim/core/error.h"

namespace trainsim {

namespace {

using Json = nlohmann::ordered_json;

// A field of an event as the parser met it: absent, a string, a number, or something else.
struct Field {
  enum Kind { kAbsent, kString, kNumber, kOther } kind = kAbsent;
  std::string text;
  double number = 0;
  long long integer = 0;
  Field() = default;
  explicit Field(Kind k) : kind(k) {}
};

struct Event {
  Field ph, name, cat, pid, tid, ts, dur;
  bool args = false, args_object = false;
  Field args_name;
};

class SliceReader final : public nlohmann::json_sax<Json> {
 public:
  explicit SliceReader(const std::string& file) : file_(file) {}
  TraceSlices out;

  bool null() override { return scalar(Field{Field::kOther}); }
  bool boolean(bool) override { return scalar(Field{Field::kOther}); }
  bool number_integer(number_integer_t v) override { return number(static_cast<double>(v), v); }
  bool number_unsigned(number_unsigned_t v) override {
    return number(static_cast<double>(v), static_cast<long long>(v));
  }
  bool number_float(number_float_t v, const string_t&) override {
    return number(v, static_cast<long long>(v));
  }
  bool string(string_t& s) override {
    Field f{Field::kString};
    f.text = std::move(s);
    return scalar(std::move(f));
  }
  bool binary(binary_t&) override { return scalar(Field{Field::kOther}); }
  bool key(string_t& k) override {
    stack_.back().key = std::move(k);
    return true;
  }
  bool start_object(std::size_t) override { return open(false); }
  bool start_array(std::size_t) override { return open(true); }
  bool end_object() override { return close(); }
  bool end_array() override { return close(); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    return false;
  }

 private:
  struct Frame {
    bool array = false;
    std::string key;
  };
  // Where the current value goes: the depth of its container (0: the top level).
  std::size_t depth() const { return stack_.size(); }
  bool in_events() const {
    return events_ >= 0 && depth() == static_cast<std::size_t>(events_) + 1;
  }
  bool in_event() const { return event_ >= 0 && depth() == static_cast<std::size_t>(event_) + 1; }
  bool in_args() const { return args_ >= 0 && depth() == static_cast<std::size_t>(args_) + 1; }

  bool number(double v, long long i) {
    Field f{Field::kNumber};
    f.number = v;
    f.integer = i;
    return scalar(std::move(f));
  }
  bool scalar(Field f) {
    if (depth() == 0) out.json = true;  // a bare value: JSON, no events
    if (in_args() && stack_.back().key == "name") event_fields.args_name = std::move(f);
    if (!in_event()) return true;
    if (Field* at = field(stack_.back().key)) *at = std::move(f);
    if (stack_.back().key == "args") event_fields.args = true;  // present, not an object
    return true;
  }
  Field* field(const std::string& k) {
    Event& e = event_fields;
    if (k == "ph") return &e.ph;
    if (k == "name") return &e.name;
    if (k == "cat") return &e.cat;
    if (k == "pid") return &e.pid;
    if (k == "tid") return &e.tid;
    if (k == "ts") return &e.ts;
    if (k == "dur") return &e.dur;
    return nullptr;
  }
  bool open(bool array) {
    const std::size_t d = depth();
    if (d == 0) {
      out.json = true;
      if (array) events_ = 0, out.events = true;
    } else if (d == 1 && !stack_[0].array && stack_[0].key == "traceEvents") {
      // The events (a key given twice: the last one counts, as in a parsed tree).
      if (array) {
        events_ = 1;
        out.events = true;
        out.tracks.clear(), out.slices.clear(), track_of_.clear();
      } else {
        events_ = -1;
        out.events = false;
      }
    } else if (in_events() && !array) {
      event_ = static_cast<int>(d);
      event_fields = Event{};
    } else if (in_event() && !array && stack_.back().key == "args") {
      args_ = static_cast<int>(d);
      event_fields.args = event_fields.args_object = true;
      event_fields.args_name = Field{};
    } else if (in_event() && stack_.back().key == "args") {
      event_fields.args = true, event_fields.args_object = false;
    } else if (in_event()) {
      if (Field* at = field(stack_.back().key)) *at = Field{Field::kOther};
    }
    stack_.push_back({array, ""});
    return true;
  }
  bool close() {
    stack_.pop_back();
    const int d = static_cast<int>(depth());
    if (d == args_) args_ = -1;
    if (d == event_) {
      event_ = -1;
      take(event_fields);
    }
    if (d == events_ && events_ > 0) events_ = -2;  // the array ended (not a second one)
    return true;
  }

  // A string field ("" when absent); UserError when it is not a string.
  std::string text(const Field& f, const char* what) const {
    if (f.kind == Field::kAbsent) return "";
    if (f.kind != Field::kString) bad(what, "a string");
    return f.text;
  }
  long long integer(const Field& f, const char* what) const {
    if (f.kind == Field::kAbsent) return 0;
    if (f.kind != Field::kNumber) bad(what, "a number");
    return f.integer;
  }
  [[noreturn]] void bad(const char* what, const char* type) const {
    throw UserError(file_ + ": trace event " + std::to_string(index_) + ": " + what + " is not " +
                    type);
  }
  int track(const Event& e) {
    const std::pair<long long, long long> id{integer(e.pid, "pid"), integer(e.tid, "tid")};
    auto it = track_of_.find(id);
    if (it == track_of_.end()) {
      it = track_of_.emplace(id, static_cast<int>(out.tracks.size())).first;
      out.tracks.push_back("track " + std::to_string(id.second));
    }
    return it->second;
  }
  void take(const Event& e) {
    ++index_;
    const std::string ph = text(e.ph, "ph");
    if (ph == "M" && text(e.name, "name") == "thread_name" && e.args) {
      if (!e.args_object) bad("args", "an object");
      const int t = track(e);
      out.tracks[static_cast<std::size_t>(t)] = text(e.args_name, "args.name");
    }
    if (ph != "X" || e.ts.kind != Field::kNumber || e.dur.kind != Field::kNumber) return;
    GanttSlice s;
    s.track = track(e);
    s.start_us = e.ts.number, s.duration_us = e.dur.number;
    s.label = text(e.name, "name"), s.category = text(e.cat, "cat");
    out.slices.push_back(std::move(s));
  }

  std::string file_;
  std::vector<Frame> stack_;
  int events_ = -1, event_ = -1, args_ = -1;  // depths of the open containers, -1: none
  Event event_fields;
  std::map<std::pair<long long, long long>, int> track_of_;
  std::size_t index_ = 0;
};

}  // namespace

TraceSlices read_trace_slices(const std::string& text, const std::string& file) {
  SliceReader reader(file);
  if (!Json::sax_parse(text, &reader)) return TraceSlices{};
  return std::move(reader.out);
}

}  // namespace trainsim
