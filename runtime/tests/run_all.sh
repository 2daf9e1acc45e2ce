#!/usr/bin/env bash
# Runs each test binary given as an argument (environment from the caller), prints its output, and
# ends with a summary that names every failed test with its exit code and its first failure lines,
# so the last lines of a long log say what broke. Usage: run_all.sh LABEL [exit-code note] -- TESTS...
# Exit status: 0 if every test exited 0, else 1.
set -u
label=$1; shift
note=""
if [ "$1" != "--" ]; then note=$1; shift; fi
shift
log_dir=$(mktemp -d)
trap 'rm -rf "$log_dir"' EXIT
failed=()
for t in "$@"; do
	echo "== $t"
	out="$log_dir/$(basename "$t").log"
	"$t" 2>&1 | tee "$out"
	rc=${PIPESTATUS[0]}
	if [ "$rc" -ne 0 ]; then
		echo "== $t: exit $rc"
		failed+=("$t:$rc")
	fi
done
if [ ${#failed[@]} -eq 0 ]; then
	echo "$label tests passed"
	exit 0
fi
echo "$label tests FAILED (${#failed[@]} of $#)${note:+; $note}:"
for f in "${failed[@]}"; do
	t=${f%:*}
	echo "  $(basename "$t"): exit ${f##*:}"
	grep -E "FAILED|FAIL:|runtime error|ERROR: |WARNING: ThreadSanitizer" "$log_dir/$(basename "$t").log" \
		| head -5 | sed 's/^/    /'
done
exit 1
