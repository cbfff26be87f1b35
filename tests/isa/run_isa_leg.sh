#!/usr/bin/env bash
# One ISA leg of ctest: runs a test binary with KILN_ISA=ISA when this CPU has that ISA, else
# says so loudly and exits 77 (ctest's SKIP_RETURN_CODE: the leg shows as "Skipped" in ctest's
# summary, never as a silent pass).
#   run_isa_leg.sh ISA BINARY [ARGS...]
set -uo pipefail
isa=$1
shift
flags=$(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null || true)
has() { [[ " $flags " == *" $1 "* ]]; }
case "$isa" in
  generic) ok=1 ;;
  avx2) has avx2 && has fma && ok=1 || ok=0 ;;
  avx512) has avx512f && has fma && ok=1 || ok=0 ;;
  *)
    echo "run_isa_leg: unknown ISA $isa" >&2
    exit 2
    ;;
esac
cpu=$(grep -m1 '^model name' /proc/cpuinfo 2>/dev/null | sed 's/^model name[[:space:]]*:[[:space:]]*//')
if [ "$ok" != 1 ]; then
  echo "=================================================================="
  echo "ISA leg SKIPPED: this CPU ($cpu) has no $isa: the $isa kernels were NOT tested here."
  echo "=================================================================="
  exit 77
fi
echo "ISA leg: KILN_ISA=$isa on $cpu"
KILN_ISA=$isa exec "$@"
