#pragma once
// ADA-GP's keys in an experiment's `technique:` mapping (docs/config.md): read into its spec
// and written back resolved. The three designs share them; MAX adds its array's `unit:`.
#include <string>

#include "sim/spec/specs.h"
#include "sim/techniques/technique.h"

namespace trainsim {

void parse_adagp_keys(const ConfigMap& m, const TechniqueInfo& info, TechniqueSpec& spec);
void emit_adagp_keys(YAML::Emitter& out, const TechniqueSpec& spec, const TechniqueInfo& info);
/// "adagp-max@3": three warm-up epochs.
void set_adagp_shorthand(double x, const std::string& text, const ConfigNode& where,
                         TechniqueSpec& spec);

}  // namespace trainsim
