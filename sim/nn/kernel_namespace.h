#pragma once
// The numerics' kernels (sim/nn/kernels/) are compiled twice: with the build's flags
// (-march=native by default) and for plain x86-64, SSE2 only (CMakeLists.txt, the object
// library trainsim_kernels_baseline, which defines TRAINSIM_KERNEL_NS=kernels_baseline).
// Everything those files define, and the inline vector helpers they use (sim/nn/simd.h),
// lives in this namespace, so the two builds link into one program side by side.
#ifndef TRAINSIM_KERNEL_NS
#define TRAINSIM_KERNEL_NS kernels_native
#endif
