#pragma once
// The technique of an experiment that names none. Its own header, so that the spec
// (sim/spec/specs.h) can default to it while sim/spec stays below sim/techniques/
// (docs/DESIGN.md#layers): the one file outside sim/techniques/ that names a technique
// (tests/unit/test_technique_names.cpp allows it). technique_registry.cpp lists it first.
namespace trainsim {

inline constexpr char kDefaultTechnique[] = "bp";

}  // namespace trainsim
