#!/usr/bin/env bash
# kiln.1 (`kiln help-man`): groff renders it without a warning at 80 and 60 columns (-ww: all
# warnings), man-db's `man --warnings -l` (lintian's check) says nothing, every subcommand
# `kiln --help` lists has its section, and every option each subcommand's --help lists is in the
# rendered page. With BUILT (the build's kiln.1.gz), it must equal what kiln prints now.
# Usage: man_page_test.sh KILN [BUILT]
set -euo pipefail
kiln=$1 built=${2:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() {
  echo "man_page_test: $*"
  exit 1
}
command -v groff > /dev/null || fail "no groff (Debian's groff-base: scripts/setup.sh)"

"$kiln" help-man > "$tmp/kiln.1"
for width in 80 60; do
  groff -man -Tutf8 -rLL=${width}n -ww -z "$tmp/kiln.1" 2> "$tmp/groff.log"
  [ ! -s "$tmp/groff.log" ] || { cat "$tmp/groff.log"; fail "groff warns at $width columns"; }
done
if command -v man > /dev/null; then
  LC_ALL=C.UTF-8 MANROFFSEQ='' MANWIDTH=80 man --warnings -E UTF-8 -l -Tutf8 -Z "$tmp/kiln.1" \
    > /dev/null 2> "$tmp/man.log"
  [ ! -s "$tmp/man.log" ] || { cat "$tmp/man.log"; fail "man --warnings"; }
fi
LC_ALL=C.UTF-8 groff -man -Tutf8 -rLL=200n -P-cbou "$tmp/kiln.1" > "$tmp/kiln.txt"
grep -q '^NAME' "$tmp/kiln.txt" && grep -q '^ *kiln - ' "$tmp/kiln.txt" || fail "no NAME 'kiln - ...'"
for section in SYNOPSIS DESCRIPTION OPTIONS 'EXIT STATUS' ENVIRONMENT EXAMPLES; do
  grep -q "^$section\$" "$tmp/kiln.txt" || fail "no $section section"
done
grep -q 'KILN_ISA' "$tmp/kiln.txt" || fail "ENVIRONMENT lacks KILN_ISA"

# The subcommands and their options, as --help lists them.
subs=$("$kiln" --help | awk '/^Subcommands:/ {on = 1; next} on && /^  [a-z]/ {print $1} on && /^$/ {on = 0}')
[ "$(wc -w <<< "$subs")" -ge 8 ] || fail "kiln --help lists too few subcommands: $subs"
checked=0
for sub in $subs; do
  upper=$(tr a-z A-Z <<< "kiln $sub")
  grep -q "^$upper\$" "$tmp/kiln.txt" || fail "no section '$upper'"
  # the options: what --help prints before its footer
  opts=$("$kiln" "$sub" --help | sed '/^Examples:/,$d' | grep -oE '(^|[ ,])--?[A-Za-z][A-Za-z0-9-]*' |
    sed 's/^[ ,]//' | sort -u)
  section=$(awk -v s="$upper" '$0 == s {on = 1; next} on && /^[A-Z]/ {exit} on' "$tmp/kiln.txt")
  for opt in $opts; do
    grep -qF -- "$opt" <<< "$section" || fail "section '$upper' lacks $opt"
    checked=$((checked + 1))
  done
done
# help-man itself is hidden: not documented as a subcommand
! grep -q '^KILN HELP-MAN$' "$tmp/kiln.txt" || fail "the hidden help-man has a section"

if [ -n "$built" ]; then
  zcat "$built" | cmp -s - "$tmp/kiln.1" || fail "$built differs from 'kiln help-man' (rebuild)"
fi
echo "man_page_test: $(wc -l < "$tmp/kiln.1") lines; no groff/man warning; $(wc -w <<< "$subs")" \
  "subcommand sections, $checked options checked against --help"
