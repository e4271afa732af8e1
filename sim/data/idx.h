#pragma once
// IDX files (the format of MNIST and Fashion-MNIST, http://yann.lecun.com/exdb/mnist/):
// two zero bytes, a type byte, the number of dimensions, big-endian 32-bit sizes, then the
// payload. trainsim only needs unsigned bytes (type 0x08), so that is all it accepts.
#include <cstdint>
#include <string>
#include <vector>

namespace trainsim {

/// An IDX array of unsigned bytes, row-major as stored in the file.
struct IdxArray {
  std::vector<std::uint32_t> dims;  ///< 1..4 dimensions, each > 0
  std::vector<std::uint8_t> data;   ///< exactly the product of dims bytes
};

/// Reads a plain or gzip-compressed (detected by its 1f 8b magic) IDX file of unsigned
/// bytes. `payload` names the contents in error messages ("pixel data", "label data").
/// Throws UserError "<path>: <what is wrong>" if the file is missing, unreadable, not
/// IDX, not unsigned bytes, has a zero dimension, is truncated or has trailing bytes.
IdxArray read_idx(const std::string& path, const std::string& payload = "data");

/// Writes an uncompressed IDX file of unsigned bytes. The file is written under a
/// temporary name and renamed into place, so a failed write leaves nothing at `path`.
/// Throws UserError if dims do not describe data or the file cannot be written.
void write_idx(const std::string& path, const std::vector<std::uint32_t>& dims,
               const std::vector<std::uint8_t>& data);

}  // namespace trainsim
