// KILN_API marks what libkiln exports. libkiln is built with -fvisibility=hidden: only the
// classes and functions of include/kiln/ carry this mark; everything else stays internal.
#pragma once

#if defined(_WIN32)
#define KILN_API
#else
#define KILN_API __attribute__((visibility("default")))
#endif
