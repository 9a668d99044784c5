#!/usr/bin/env bash
# Runs the long form of the reliability suite (test/reliability with RELIABILITY_LONG=1: more
# orders, more crashes, longer fault windows) and of the topology rig (test/topology with
# TOPOLOGY_LONG=1: the full fault list against separate processes) and writes their figures
# to docs/reliability.md.
#
#   hack/reliability.sh                  # long form, writes docs/reliability.md
#   RELIABILITY_LONG= hack/reliability.sh  # the bounded form of `make test`, same report
#   REPORT=/tmp/r.json hack/reliability.sh # JSON instead (any path not ending in .md)
#   PARTS=topology hack/reliability.sh     # only some parts: suite, topology, lifecycle
#   PARTS=topology TOPOLOGY_FAULTS=redis,receiver hack/reliability.sh  # chosen topology faults
set -euo pipefail
cd "$(dirname "$0")/.."

export RELIABILITY_LONG=${RELIABILITY_LONG-1}
REPORT=${REPORT:-$PWD/docs/reliability.md}
mkdir -p "$(dirname "$REPORT")"
export RELIABILITY_REPORT=$REPORT
export KUBEBUILDER_ASSETS=${KUBEBUILDER_ASSETS:-$PWD/bin/k8s/1.37.1-linux-amd64}

form=bounded
if [ -n "$RELIABILITY_LONG" ]; then form=long; fi
PARTS=${PARTS:-suite topology lifecycle}
part() { case " $PARTS " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }

if part suite; then
echo "reliability suite ($form form), report to $REPORT"
# -v prints the per-scenario FIGURES lines as they are measured.
set +e
go test -count=1 -timeout 60m ./test/reliability/ -v -args -ginkgo.v 2>&1 |
	grep --line-buffered -E 'FIGURES|\[FAILED\]|^--- FAIL|^(ok|FAIL|PASS)|Ran [0-9]+ of'
status=${PIPESTATUS[0]}
set -e
if [ "$status" -ne 0 ]; then
	echo "reliability suite failed (exit $status); $REPORT may be incomplete" >&2
	exit "$status"
fi
fi
# The production topology (test/topology): separate processes, faults by real signals. Its
# section is appended to the Markdown report.
if part topology; then
export TOPOLOGY_LONG=${RELIABILITY_LONG:+1}
TOPOLOGY_SECTION=$(mktemp)
trap 'rm -f "$TOPOLOGY_SECTION"' EXIT
echo "topology rig ($form form)"
set +e
TOPOLOGY_REPORT=$TOPOLOGY_SECTION go test -count=1 -timeout 120m ./test/topology/ -v 2>&1 |
	grep --line-buffered -E 'FIGURES|^\s+topology_test.go:[0-9]+: fault|^--- FAIL|^(ok|FAIL|PASS)'
status=${PIPESTATUS[0]}
set -e
if [ "$status" -ne 0 ]; then
	echo "topology rig failed (exit $status)" >&2
	exit "$status"
fi
case "$REPORT" in *.md) cat "$TOPOLOGY_SECTION" >>"$REPORT" ;; esac
echo "wrote $REPORT"
fi

# The order-lifecycle specs of the controllers suite (their figures are the hand-kept section
# of the report); the long form runs the credentials outage with 1,000 active orders.
if part lifecycle; then
echo "order lifecycle specs ($form form)"
set +e
go test -count=1 -timeout 30m ./controllers/ -run TestControllers -v -args -ginkgo.v \
	-ginkgo.focus='lifecycle with real money|at start-up' 2>&1 |
	grep --line-buffered -E 'FIGURES|active orders|\[FAILED\]|^--- FAIL|^(ok|FAIL|PASS)|Ran [0-9]+ of'
status=${PIPESTATUS[0]}
set -e
if [ "$status" -ne 0 ]; then
	echo "order lifecycle specs failed (exit $status)" >&2
	exit "$status"
fi
fi
