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

/// Where parse_idx() reads from: a file (read_idx) or memory (the IDX fuzz target).
class ByteSource {
 public:
  virtual ~ByteSource() = default;
  /// Copies up to `n` bytes into `buf`; fewer only at the end. Throws UserError if reading
  /// fails.
  virtual std::size_t read(std::uint8_t* buf, std::size_t n) = 0;
  /// Why the bytes ended before the payload did, if the source knows (" (gzip stream ends
  /// early)"), appended to the "truncated" message.
  virtual std::string early_end_note() { return ""; }
};

/// Bytes already in memory (tests, the IDX fuzz target); they must outlive the source.
class MemorySource final : public ByteSource {
 public:
  MemorySource(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  std::size_t read(std::uint8_t* buf, std::size_t n) override;

 private:
  const std::uint8_t* data_;
  std::size_t size_, at_ = 0;
};

/// The IDX format itself: header checks, payload, trailing bytes. `name` prefixes every
/// error ("<name>: truncated: ...").
IdxArray parse_idx(ByteSource& in, const std::string& name, const std::string& payload = "data");

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
