#pragma once
// Reading experiment and network YAML into validated specs, and writing the resolved form.
//
// Every problem is a UserError whose message names the file, the line and column, and the
// key path, e.g.
//   configs/experiments/x.yaml:12:5: training.batch_size: must be >= 1, got -3
#include <string>
#include <vector>

#include "sim/spec/specs.h"
// load_network(), which experiments use to read their network, with the network parser.
#include "sim/workload/network_config.h"

namespace trainsim {

/// Parses an experiment file, applying `overrides` ("a.b.c=value", value parsed as YAML)
/// to the YAML tree before validation. `network:` is either a network name (looked up as
/// <configs root>/networks/<name>.yaml, or relative to the experiment's folder as
/// ../networks/<name>.yaml), a path to a network file, or an inline mapping; `accelerator:`
/// (default adagp_ws180) the same with accelerators/ (see load_accelerator() for the schema).
/// A `network.<...>` or `accelerator.<...>` override on a network or accelerator given by
/// name or path first inlines its file (and `accelerator.energy.<...>` the accelerator's
/// energy table); errors in inlined nodes still name the file they came from.
ExperimentSpec load_experiment(const std::string& path,
                               const std::vector<std::string>& overrides = {});

/// The experiment with every default filled in and the network and the accelerator (with
/// its energy table) inlined, as YAML that load_experiment() reads back to an identical
/// spec.
std::string resolved_yaml(const ExperimentSpec& spec);
/// A network as a network file holds it (the layout resolved_yaml() uses for its `network:`),
/// which parse_network() reads back to the same spec.
std::string network_yaml(const NetworkSpec& net);
/// An ONNX model as a network, checked as a network file is: imported (sim/interop/onnx_import.h),
/// written as one, and parsed back, so the two paths cannot accept different networks; and its
/// trainable parameters must equal the model's initializers' (UserError otherwise).
NetworkSpec onnx_network(const std::string& path, const std::string& name = "");
struct OnnxImport;
/// The same for a model already imported from `path`.
NetworkSpec onnx_network(const OnnxImport& imported, const std::string& path);
/// The network file `trainsim import` writes (and trainsim.from_torch returns): a header
/// naming the model, its producer and opset, then network_yaml(net).
std::string onnx_network_file(const OnnxImport& imported, const NetworkSpec& net);

/// Names of the network files shipped in <configs root>/networks, sorted.
std::vector<std::string> shipped_network_names();

}  // namespace trainsim
