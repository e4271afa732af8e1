#include "sim/spec/shape.h"

namespace trainsim {

std::string Shape::str() const {
  return std::to_string(c) + "x" + std::to_string(h) + "x" + std::to_string(w);
}

}  // namespace trainsim
