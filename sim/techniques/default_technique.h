#pragma once
// The technique of an experiment that names none. Its own header, so that the spec
// (sim/config/specs.h) can default to it without naming a technique outside sim/techniques/;
// technique_registry.cpp lists it first.
namespace trainsim {

inline constexpr char kDefaultTechnique[] = "bp";

}  // namespace trainsim
