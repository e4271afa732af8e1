#pragma once
// TRAINSIM_ASAN is defined when this translation unit is built with AddressSanitizer (gcc
// defines __SANITIZE_ADDRESS__, clang answers __has_feature), for the few places that talk
// to the sanitizer runtime (sim/core/sanitizer_defaults.cpp, models/sc_asan.h).
#if defined(__SANITIZE_ADDRESS__)
#define TRAINSIM_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TRAINSIM_ASAN 1
#endif
#endif
