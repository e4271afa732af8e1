#pragma once
// The few pieces of protobuf's wire format the Chakra writer needs (varints, length-delimited
// fields, packed repeated varints, length-prefixed messages in a stream), written by hand so
// that trainsim needs no protobuf library. Field numbers and types come from the schema the
// caller follows (for Chakra: schema/protobuf/et_def.proto).
#include <cstdint>
#include <string>
#include <vector>

namespace trainsim::pb {

inline void varint(std::string& out, std::uint64_t v) {
  while (v >= 0x80) {
    out += static_cast<char>((v & 0x7f) | 0x80);
    v >>= 7;
  }
  out += static_cast<char>(v);
}

enum Wire : int { kVarint = 0, kFixed64 = 1, kLength = 2, kFixed32 = 5 };

inline void tag(std::string& out, int field, Wire wire) {
  varint(out, (static_cast<std::uint64_t>(field) << 3) | static_cast<std::uint64_t>(wire));
}

/// A varint field (uint64, int64 >= 0, enum, bool). proto3 leaves zero values out.
inline void field_varint(std::string& out, int field, std::uint64_t v) {
  if (v == 0) return;
  tag(out, field, kVarint);
  varint(out, v);
}

/// A string, bytes or embedded message field.
inline void field_bytes(std::string& out, int field, const std::string& bytes) {
  tag(out, field, kLength);
  varint(out, bytes.size());
  out += bytes;
}

/// A packed repeated varint field (proto3's default for repeated scalars).
inline void field_packed(std::string& out, int field, const std::vector<std::uint64_t>& values) {
  if (values.empty()) return;
  std::string body;
  for (std::uint64_t v : values) varint(body, v);
  field_bytes(out, field, body);
}

/// A message in a stream: its length as a varint, then the message.
inline void delimited(std::string& out, const std::string& message) {
  varint(out, message.size());
  out += message;
}

}  // namespace trainsim::pb
