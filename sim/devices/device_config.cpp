#include "sim/devices/device_config.h"

#include <filesystem>

#include "sim/accel/accel_lookup.h"
#include "sim/core/error.h"
#include "sim/yaml/yaml_file.h"

namespace trainsim {

namespace {

std::string join_names(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

}  // namespace

std::shared_ptr<const DeviceModelSpec> parse_device_node(const ConfigNode& node,
                                                         const std::string& file,
                                                         const std::string& default_name) {
  ConfigMap m = node.as_map();
  const ConfigNode kind_node = m.require("kind");
  const std::string kind_name = kind_node.as_nonempty_string();
  const DeviceKind* kind = find_device_kind(kind_name);
  if (kind == nullptr) kind_node.fail(unknown_device_kind(kind_name));
  std::vector<std::string> keys = {"kind", "name", "description"};
  for (const std::string& k : kind->keys()) keys.push_back(k);
  m.allow_only(keys);
  std::shared_ptr<DeviceModelSpec> spec = kind->parse(m, file);
  spec->kind = kind->name();
  spec->name = default_name;
  if (auto v = m.get("name")) spec->name = v->as_nonempty_string();
  if (auto v = m.get("description")) spec->description = v->as_string();
  spec->source = file;
  return spec;
}

namespace {

std::shared_ptr<const DeviceModelSpec> load_device_file(const std::string& file) {
  auto origin = std::make_shared<ConfigOrigin>();
  origin->file = file;
  const ConfigNode top(load_yaml_file(file, "device"), "", origin);
  return parse_device_node(top, file, std::filesystem::path(file).stem().string());
}

}  // namespace

std::shared_ptr<const DeviceModelSpec> load_device(const std::string& ref) {
  return load_device_file(find_device_file(ref));
}

std::vector<std::string> shipped_device_names() {
  return shipped_config_names("devices");
}

std::shared_ptr<const DeviceModelSpec> parse_device_ref(const ConfigNode& node,
                                                        const std::string& file) {
  if (!node.is_scalar()) return parse_device_node(node, file, node.path());
  // A name or a path, found as a config's other references are: a relative path from the
  // referring file's folder first.
  const std::string ref = node.as_nonempty_string();
  std::vector<std::string> tried;
  const std::optional<std::string> found = find_referenced_file(ref, "devices", file, &tried);
  if (!found) {
    std::string what = "unknown device '" + ref + "' (tried";
    for (const std::string& t : tried) what += " " + t;
    node.fail(what + "; shipped devices: " + join_names(shipped_device_names()) + ")");
  }
  try {
    return load_device_file(*found);
  } catch (const UserError& e) {
    node.fail(e.what());
  }
}

}  // namespace trainsim
