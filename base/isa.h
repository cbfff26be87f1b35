// The instruction sets kiln has kernels for, what this CPU can run, and which one kernels use.
// Detection is here, below kernels/, so every kernel family dispatches on the same answer.
#pragma once

#include <string>
#include <vector>

namespace kiln {

// Instruction sets with kernels, from the most portable up.
enum class Isa { Generic, Avx2, Avx512, Neon };

// "generic", "avx2", "avx512", "neon".
std::string isa_name(Isa isa);
// Whether this CPU (and OS) can run code for `isa`, and this build has kernels for it.
bool isa_supported(Isa isa);
// The ISA kernels use: KILN_ISA=generic|avx2|avx512|neon when set (error if unsupported here), else
// the best supported one. Read once per process.
Isa active_isa();
// Every ISA this machine can run (for tests and benchmarks), most portable first.
std::vector<Isa> supported_isas();

// Optional extensions within an ISA that some kernels use (int8 dot products), reported by the
// CPU: the kernel that needs one checks it besides the ISA.
enum class CpuFeature { Avx512Vnni, AvxVnni, NeonDotProd };
bool cpu_has(CpuFeature feature);

}  // namespace kiln
