#pragma once
// Checkpoint (de)serialization of training state. One function per stateful class,
// `checkpoint(StateArchive&)`, both writes and restores: it hands each member to the archive,
// which either appends its bytes or overwrites it from the stream. Save and restore therefore
// cannot drift apart. The format is the process's memory layout (a checkpoint resumes a run
// with the same binary on the same machine; sim/train/checkpoint.h checks that), with
// section tags so a stream read out of step fails loudly instead of loading garbage.
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

namespace trainsim {

class StateArchive {
 public:
  virtual ~StateArchive() = default;
  virtual bool loading() const = 0;
  /// Appends `n` bytes from `p`, or reads `n` bytes into `p`.
  virtual void bytes(void* p, std::size_t n) = 0;

  /// A tag: written as is; on load, a different tag throws (naming both).
  void section(const std::string& tag);

  template <typename T>
  void value(T& v) {
    static_assert(std::is_trivially_copyable_v<T>, "value() copies bytes");
    bytes(&v, sizeof v);
  }
  /// A vector's size, then its elements (resized on load).
  template <typename T>
  void vector(std::vector<T>& v) {
    std::uint64_t n = v.size();
    value(n);
    constexpr bool flat = std::is_trivially_copyable_v<T> && !std::is_same_v<T, bool>;
    // Every element takes at least one byte of the stream (a nested vector: its count).
    if (loading()) v.resize(check_count(n, flat ? sizeof(T) : 1));
    if constexpr (flat) {
      if (n > 0) bytes(v.data(), n * sizeof(T));
    } else {
      for (auto& x : v) element(x);
    }
  }
  void string(std::string& s);

  /// Rejects a count a corrupt stream could make absurd, before anything is allocated:
  /// `n` elements of at least `element_size` bytes each must fit in what remains.
  virtual std::uint64_t check_count(std::uint64_t n, std::size_t element_size) = 0;

 private:
  template <typename T>
  struct is_vector : std::false_type {};
  template <typename T, typename A>
  struct is_vector<std::vector<T, A>> : std::true_type {};

  // Elements that are not plain bytes: strings, nested vectors, and any type with an
  // `archive(StateArchive&, T&)` overload (found by argument-dependent lookup).
  template <typename T>
  void element(T& x) {
    if constexpr (std::is_same_v<T, std::string>) {
      string(x);
    } else if constexpr (is_vector<T>::value) {
      vector(x);
    } else {
      archive(*this, x);
    }
  }
  void element(std::vector<bool>::reference x);
};

/// Writes into a string.
class StateWriter final : public StateArchive {
 public:
  bool loading() const override { return false; }
  void bytes(void* p, std::size_t n) override;
  std::uint64_t check_count(std::uint64_t n, std::size_t) override { return n; }
  const std::string& data() const { return data_; }

 private:
  std::string data_;
};

/// Reads from a string; a read past its end or a wrong tag throws UserError naming `source`.
class StateReader final : public StateArchive {
 public:
  StateReader(std::string data, std::string source);
  bool loading() const override { return true; }
  void bytes(void* p, std::size_t n) override;
  std::uint64_t check_count(std::uint64_t n, std::size_t element_size) override;
  bool at_end() const { return pos_ == data_.size(); }
  const std::string& source() const { return source_; }

 private:
  std::string data_, source_;
  std::size_t pos_ = 0;
};

}  // namespace trainsim
