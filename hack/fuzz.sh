#!/usr/bin/env bash
# Runs every fuzz target of the repository (func FuzzXxx in a fuzz_test.go) with -fuzz, one
# after the other, for FUZZTIME each. Failing inputs land in the package's
# testdata/fuzz/<Target>/ and are then replayed by plain `go test` (commit them with the fix).
#
#   FUZZTIME=30s hack/fuzz.sh            # every target, 30 s each (the default)
#   FUZZ_TARGETS=Webhook hack/fuzz.sh    # only targets whose package or name matches the regex
#   FUZZ_PARALLEL=2                      # fuzzing workers per target (default 2)
set -euo pipefail
cd "$(dirname "$0")/.."

FUZZTIME=${FUZZTIME:-30s}
FUZZ_PARALLEL=${FUZZ_PARALLEL:-2}
FUZZ_TARGETS=${FUZZ_TARGETS:-.}
MODULE=$(go list -m)

# "<package dir> <target>" for every fuzz target.
mapfile -t targets < <(
	grep -rHoE --include=fuzz_test.go '^func Fuzz[A-Za-z0-9_]+\(f \*testing\.F\)' . |
		sed -E 's#^\./(.*)/fuzz_test\.go:func (Fuzz[A-Za-z0-9_]+).*#\1 \2#' |
		grep -E -- "$FUZZ_TARGETS" | sort
)
if [ ${#targets[@]} -eq 0 ]; then
	echo "no fuzz targets match FUZZ_TARGETS=$FUZZ_TARGETS" >&2
	exit 1
fi

echo "fuzzing ${#targets[@]} targets for $FUZZTIME each ($FUZZ_PARALLEL workers)"
failed=()
i=0
for entry in "${targets[@]}"; do
	i=$((i + 1))
	dir=${entry% *}
	target=${entry#* }
	log=$(mktemp)
	printf '[%d/%d] %s %s ... ' "$i" "${#targets[@]}" "$MODULE/$dir" "$target"
	start=$(date +%s)
	if go test -run "^${target}\$" -fuzz "^${target}\$" -fuzztime "$FUZZTIME" -parallel "$FUZZ_PARALLEL" "./$dir" >"$log" 2>&1; then
		# The last progress line says how many inputs ran in how long, and the corpus size.
		last=$(grep -E '^fuzz: elapsed: ' "$log" | tail -1 || true)
		secs=$(sed -nE 's/.*elapsed: ([0-9]+)s.*/\1/p' <<<"$last")
		execs=$(sed -nE 's/.*execs: ([0-9]+).*/\1/p' <<<"$last")
		corpus=$(sed -nE 's/.*new interesting: ([0-9]+) \(total: ([0-9]+)\).*/\1 new, \2 in corpus/p' <<<"$last")
		if [ -n "$execs" ] && [ "${secs:-0}" -gt 0 ]; then
			echo "ok (${execs} inputs in ${secs}s, ~$((execs / secs))/s; ${corpus})"
		else
			echo "ok ($(($(date +%s) - start))s)"
		fi
	else
		echo "FAIL"
		sed 's/^/    /' "$log" | tail -40
		failed+=("$dir $target")
	fi
	rm -f "$log"
done

if [ ${#failed[@]} -gt 0 ]; then
	echo
	echo "${#failed[@]} target(s) failed; the failing inputs are under <package>/testdata/fuzz/<target>/:"
	printf '  %s\n' "${failed[@]}"
	exit 1
fi
echo "all ${#targets[@]} fuzz targets passed"
