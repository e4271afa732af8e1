#include "sim/cli/arg_parse.h"

#include <algorithm>
#include <cstdio>
#include <set>

#include "sim/cli/commands.h"
#include "sim/core/error.h"

namespace po = boost::program_options;

namespace trainsim {

namespace {

bool help_requested(const std::vector<std::string>& args) {
  for (const std::string& a : args) {
    if (a == "--") return false;  // after it, "-h" is a file name
    if (a == "-h" || a == "--help") return true;
  }
  return false;
}

std::string see_help(const std::string& command) {
  return " (see trainsim " + command + " --help)";
}

// Splits `text` into lines of at most `width` characters at spaces.
std::vector<std::string> wrap(const std::string& text, std::size_t width) {
  std::vector<std::string> lines;
  std::string line, word;
  auto flush_word = [&] {
    if (word.empty()) return;
    if (!line.empty() && line.size() + 1 + word.size() > width) {
      lines.push_back(line);
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
    word.clear();
  };
  for (char c : text) {
    if (c == ' ' || c == '\n') {
      flush_word();
      if (c == '\n') {
        lines.push_back(line);
        line.clear();
      }
    } else {
      word += c;
    }
  }
  flush_word();
  if (!line.empty()) lines.push_back(line);
  return lines;
}

}  // namespace

std::string format_options(const po::options_description& opts, std::size_t width) {
  std::vector<std::pair<std::string, std::string>> rows;
  for (const auto& o : opts.options()) {
    // canonical_display_name gives "-o" when there is a short name, else the bare long name.
    const std::string shortname =
        o->canonical_display_name(po::command_line_style::allow_dash_for_short);
    std::string name = shortname.size() == 2 && shortname[0] == '-' ? shortname + ", " : "    ";
    name += "--" + o->long_name();
    const std::string param = o->format_parameter();
    if (!param.empty()) name += " " + param;
    rows.emplace_back(name, o->description());
  }
  std::size_t col = 0;
  for (const auto& r : rows) col = std::max(col, r.first.size());
  col = std::min<std::size_t>(col + 4, 30);
  std::string out;
  for (const auto& [name, text] : rows) {
    std::string line = "  " + name;
    const std::size_t indent = col + 2;
    const auto lines = wrap(text, width > indent + 20 ? width - indent : 40);
    if (line.size() + 2 > indent) {
      out += line + "\n";
      line.clear();
    }
    for (const std::string& l : lines) {
      line.resize(indent, ' ');
      out += line + l + "\n";
      line.clear();
    }
    if (lines.empty()) out += line + "\n";
  }
  return out;
}

std::string command_help(const std::string& command, const po::options_description& visible) {
  const Command* c = find_command(command);
  if (c == nullptr) throw std::logic_error("no command '" + command + "' in the registry");
  std::string out = "usage: trainsim " + c->synopsis + "\n\n";
  for (const std::string& l : wrap(c->description, 78)) out += l + "\n";
  po::options_description shown;
  shown.add(visible);
  shown.add_options()("help,h", "print this help and exit");
  out += "\noptions:\n" + format_options(shown);
  out += "\nexample:\n  " + c->example + "\n";
  return out;
}

po::variables_map parse_args(const std::string& command, const std::vector<std::string>& args,
                             const po::options_description& visible,
                             const po::positional_options_description& positional,
                             const po::options_description& hidden) {
  if (help_requested(args)) {
    std::fputs(command_help(command, visible).c_str(), stdout);
    throw HelpShown();
  }
  po::options_description all;
  all.add(visible).add(hidden);
  po::variables_map vm;
  try {
    const po::parsed_options parsed =
        po::command_line_parser(args).options(all).positional(positional).run();
    // Hidden options only receive the plain arguments: `--experiment x` is not an option.
    std::set<std::string> hidden_names;
    for (const auto& o : hidden.options()) hidden_names.insert(o->long_name());
    for (const auto& o : parsed.options)
      if (o.position_key < 0 && hidden_names.count(o.string_key))
        throw UserError(command + ": unrecognised option '--" + o.string_key + "'" +
                        see_help(command));
    po::store(parsed, vm);
    po::notify(vm);
  } catch (const po::too_many_positional_options_error&) {
    throw UserError(command + ": too many arguments" + see_help(command));
  } catch (const po::error& e) {
    throw UserError(command + ": " + e.what() + see_help(command));
  }
  return vm;
}

}  // namespace trainsim
