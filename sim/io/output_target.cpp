#include "sim/io/output_target.h"

#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <set>
#include <system_error>

#include "sim/core/error.h"
#include "sim/io/manifest.h"

namespace fs = std::filesystem;

namespace trainsim {

namespace {

std::mutex g_inputs_mutex;
std::set<fs::path> g_inputs;

// Absolute, with symlinks resolved as far as the path exists, no trailing separator.
fs::path resolved(const std::string& p) {
  std::error_code ec;
  fs::path r = fs::weakly_canonical(fs::absolute(p, ec), ec);
  if (ec) r = fs::absolute(p, ec).lexically_normal();
  std::string s = r.string();
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return s;
}

// Whether `inner` is `outer` or lies inside it.
bool within(const fs::path& outer, const fs::path& inner) {
  auto o = outer.begin(), i = inner.begin();
  for (; o != outer.end(); ++o, ++i)
    if (i == inner.end() || *o != *i) return false;
  return true;
}

}  // namespace

void note_input_path(const std::string& path) {
  const fs::path r = resolved(path);
  std::lock_guard<std::mutex> lock(g_inputs_mutex);
  g_inputs.insert(r);
}

void check_output_target(const std::string& dir, const std::string& command,
                         const std::string& option) {
  const std::string head = command + ": " + option + " '" + dir + "' ";
  if (dir.empty()) throw UserError(command + ": " + option + " is empty");
  const fs::path target = resolved(dir);
  const std::string tail = ": trainsim writes results only into a directory of their own";
  if (target == target.root_path()) throw UserError(head + "is the root directory" + tail);
  if (const char* home = std::getenv("HOME"); home && *home && resolved(home) == target)
    throw UserError(head + "is the home directory" + tail);
  std::error_code ec;
  const fs::path cwd = resolved(fs::current_path(ec).string());
  if (!ec && within(target, cwd))
    throw UserError(
        head + (target == cwd ? "is the working directory" : "contains the working directory") +
        tail);
  {
    std::lock_guard<std::mutex> lock(g_inputs_mutex);
    for (const fs::path& in : g_inputs)
      if (within(target, in))
        throw UserError(head + (target == in ? "is" : "contains") + " the input '" + in.string() +
                        "'" + tail);
  }
  if (fs::exists(target, ec) && !fs::is_directory(target, ec))
    throw UserError(head + "is a file, not a results directory");
}

void check_apart(const std::string& a, const std::string& option_a, const std::string& b,
                 const std::string& option_b, const std::string& command) {
  const fs::path ra = resolved(a), rb = resolved(b);
  if (!within(ra, rb) && !within(rb, ra)) return;
  throw UserError(command + ": " + option_a + " '" + a + "' and " + option_b + " '" + b + "' " +
                  (ra == rb ? "name the same directory" : "lie one inside the other") +
                  ": each is a results directory of its own; give them separate paths");
}

void check_replaceable(const std::string& dir, const std::string& command,
                       const std::string& option) {
  const std::string foreign = foreign_entry(dir);
  if (foreign.empty()) return;
  if (foreign.front() == '(')
    throw UserError(
        command + ": --force replaces only a directory trainsim wrote, and " + option + " '" + dir +
        "' has no " + kManifestName +
        " (it is not trainsim's, or older than trainsim's manifests): remove it yourself if "
        "it is yours to delete, or choose another " +
        option);
  throw UserError(command + ": --force replaces only what trainsim wrote, and " + option + " '" +
                  dir + "' holds '" + foreign +
                  "', which trainsim did not write: move it away, or choose another " + option);
}

}  // namespace trainsim
