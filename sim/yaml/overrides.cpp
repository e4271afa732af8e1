#include "sim/yaml/overrides.h"

#include <charconv>

#include "sim/core/error.h"

namespace trainsim {

namespace {

[[noreturn]] void fail(const Override& o, const std::string& what) {
  throw UserError("--set " + o.text + ": " + what);
}

bool parse_index(const std::string& s, std::size_t* index) {
  if (s.empty()) return false;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), *index);
  return ec == std::errc() && end == s.data() + s.size();
}

std::string join_path(const std::vector<std::string>& segs, std::size_t n) {
  std::string out;
  for (std::size_t i = 0; i < n; ++i) out += (i ? "." : "") + segs[i];
  return out;
}

}  // namespace

Override parse_override(const std::string& text) {
  Override o;
  o.text = text;
  std::size_t eq = text.find('=');
  if (eq == std::string::npos) fail(o, "expected key.path=value");
  std::string path = text.substr(0, eq);
  if (path.empty()) fail(o, "expected key.path=value (the key path is empty)");
  std::size_t start = 0;
  while (true) {
    std::size_t dot = path.find('.', start);
    std::string seg =
        path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (seg.empty()) fail(o, "empty key in path '" + path + "'");
    o.segments.push_back(seg);
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  try {
    o.value = YAML::Load(text.substr(eq + 1));
  } catch (const YAML::ParserException& e) {
    fail(o, "malformed value: " + e.msg);
  }
  return o;
}

std::string apply_override(YAML::Node root, const Override& o) {
  // Walk with reset(), never operator=: assigning one yaml-cpp Node to another rewrites
  // the node it refers to, which would corrupt the tree while walking it.
  YAML::Node cur;
  cur.reset(root);
  std::vector<std::string> segs = o.segments;
  for (std::size_t i = 0; i < segs.size(); ++i) {
    const bool last = i + 1 == segs.size();
    std::string& seg = segs[i];
    if (cur.IsSequence()) {
      std::size_t idx = 0;
      if (!parse_index(seg, &idx)) {
        fail(o, "'" + join_path(segs, i) + "' is a list; '" + seg + "' is not an index");
      }
      seg = std::to_string(idx);  // "02" and "2" name the same item
      // One past the end appends, so a list can grow from the command line.
      if (idx > cur.size() || (idx == cur.size() && !last)) {
        fail(o, "index " + seg + " is out of range ('" + join_path(segs, i) + "' has " +
                    std::to_string(cur.size()) + " items)");
      }
      if (last) {
        if (idx == cur.size()) {
          cur.push_back(o.value);
        } else {
          cur[idx] = o.value;
        }
        break;
      }
      YAML::Node next = cur[idx];
      cur.reset(next);
    } else if (cur.IsMap() || cur.IsNull()) {
      if (last) {
        cur[seg] = o.value;
        break;
      }
      const YAML::Node& const_cur = cur;
      YAML::Node existing = const_cur[seg];
      if (!existing.IsDefined() || existing.IsNull()) {
        cur[seg] = YAML::Node(YAML::NodeType::Map);
      }
      YAML::Node next = cur[seg];
      cur.reset(next);
    } else {
      fail(o, "'" + join_path(segs, i) + "' is a single value, not a mapping");
    }
  }
  return join_path(segs, segs.size());
}

}  // namespace trainsim
