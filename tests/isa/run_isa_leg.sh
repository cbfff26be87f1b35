#!/usr/bin/env bash
# One ISA leg of ctest: runs a test binary with KILN_ISA=ISA when this CPU has that ISA, else
# says so loudly and exits 77 (ctest's SKIP_RETURN_CODE: the leg shows as "Skipped" in ctest's
# summary, never as a silent pass).
#   run_isa_leg.sh ISA BINARY [ARGS...]
#   run_isa_leg.sh --summary      which ISA legs this CPU runs (scripts/test.sh prints it)
set -uo pipefail
isa=$1
shift
flags=$(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null || true)
has() { [[ " $flags " == *" $1 "* ]]; }
if [ "$isa" = --summary ]; then
  cpu=$(grep -m1 '^model name' /proc/cpuinfo 2>/dev/null | sed 's/^model name[[:space:]]*:[[:space:]]*//')
  ran="generic" missing=""
  if has avx2 && has fma; then ran+=" avx2"; else missing+=" avx2"; fi
  if has avx512f && has fma; then ran+=" avx512"; else missing+=" avx512"; fi
  echo "ISA legs on $cpu: exercised:$([ -n "$ran" ] && echo " $ran")"
  if [ -n "$missing" ]; then
    echo "=================================================================="
    echo "WARNING: this CPU has no$missing: those kernels were NOT tested here."
    echo "=================================================================="
  fi
  exit 0
fi
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
