#include "sim/core/state_archive.h"

#include "sim/core/error.h"

namespace trainsim {

void StateArchive::section(const std::string& tag) {
  std::string t = tag;
  string(t);
  if (loading() && t != tag)
    throw UserError("checkpoint out of step: expected section '" + tag + "', found '" +
                    t.substr(0, 40) + "'");
}

void StateArchive::string(std::string& s) {
  std::uint64_t n = s.size();
  value(n);
  if (loading()) s.resize(check_count(n, 1));
  if (n > 0) bytes(s.data(), n);
}

void StateArchive::element(std::vector<bool>::reference x) {
  bool b = x;
  value(b);
  x = b;
}

void StateWriter::bytes(void* p, std::size_t n) {
  data_.append(static_cast<const char*>(p), n);
}

StateReader::StateReader(std::string data, std::string source)
    : data_(std::move(data)), source_(std::move(source)) {}

void StateReader::bytes(void* p, std::size_t n) {
  if (n > data_.size() - pos_)
    throw UserError(source_ + ": checkpoint truncated (needs " + std::to_string(pos_ + n) +
                    " bytes, has " + std::to_string(data_.size()) + ")");
  std::memcpy(p, data_.data() + pos_, n);
  pos_ += n;
}

std::uint64_t StateReader::check_count(std::uint64_t n, std::size_t element_size) {
  if (n > (data_.size() - pos_) / element_size)
    throw UserError(source_ + ": checkpoint corrupt (a count of " + std::to_string(n) +
                    " exceeds what remains)");
  return n;
}

}  // namespace trainsim
