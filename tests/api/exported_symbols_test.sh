#!/usr/bin/env bash
# ABI check: libkiln.so exports only the public API (nm -D): C functions kiln_*, kiln::api::*
# and kiln::Error (its members, typeinfo, vtable). Usage: exported_symbols_test.sh LIBKILN_SO
set -euo pipefail
so=$1
symbols=$(nm -D --defined-only "$so" | awk '{print $3}' | c++filt)
[ -n "$symbols" ] || { echo "exported_symbols: nm -D found nothing in $so"; exit 1; }
bad=$(grep -Ev '^(kiln_[a-z_0-9]+|kiln::api::.*|kiln::Error::.*|typeinfo for kiln::Error|typeinfo name for kiln::Error|vtable for kiln::Error)$' <<< "$symbols" || true)
if [ -n "$bad" ]; then
  echo "exported_symbols: $so exports symbols outside the public API:"
  head -20 <<< "$bad"
  exit 1
fi
for required in kiln_model_load kiln_session_run kiln_last_error 'kiln::api::Model::load('; do
  grep -qF "$required" <<< "$symbols" || { echo "exported_symbols: $required is not exported"; exit 1; }
done
echo "exported_symbols: $(wc -l <<< "$symbols") symbols, all public API ($(grep -c '^kiln_' <<< "$symbols") C functions)"
