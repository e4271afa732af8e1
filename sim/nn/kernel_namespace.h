#pragma once
// The numerics' kernels (sim/nn/kernels/) are compiled several times: with the build's flags
// (-march=native by default), and for other instruction sets (CMakeLists.txt: the object
// libraries trainsim_kernels_NAME, which define TRAINSIM_KERNEL_NS=kernels_NAME). Everything
// those files define, and the inline vector helpers they use (sim/nn/simd.h), lives in this
// namespace, so the builds link into one program side by side. Library templates that compute
// (Eigen's products, say) would not: their instances have the same names in every build, and
// the linker keeps one for all; the kernels use none (tests/unit/test_kernel_isa.cpp checks).
#ifndef TRAINSIM_KERNEL_NS
#define TRAINSIM_KERNEL_NS kernels_native
#endif
