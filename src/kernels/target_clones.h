// ONYX_TARGET_CLONES: put before a hot loop function to have GCC build it for AVX-512
// (x86-64-v4), AVX2+FMA (x86-64-v3) and baseline x86-64, picked once at start-up by the CPU.
// Empty elsewhere (other compilers and architectures, sanitizer builds).
#pragma once

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
#define ONYX_TARGET_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define ONYX_TARGET_CLONES
#endif
