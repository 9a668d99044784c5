package apiserver

import (
	"flag"
	"fmt"
	"os"
	"slices"
	"testing"

	"github.com/swaprouter/swaprouter/internal/apierror"
)

// TestMain runs the tests, then — when the whole package ran — proves two things about the
// errors the handler tests provoked: the OpenAPI source lists each for the route that answered
// it, and every code of the API was provoked by some test.
func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	if code == 0 && flag.Lookup("test.run").Value.String() == "" {
		if err := checkObservedCodes(); err != nil {
			fmt.Fprintln(os.Stderr, "FAIL:", err)
			code = 1
		}
	}
	os.Exit(code)
}

func checkObservedCodes() error {
	declared := map[string]func(apierror.Code) bool{
		"unmatched": func(c apierror.Code) bool { return slices.Contains(routerCodes, c) },
		// The preflight route is not in the table: it answers 204 or `origin not allowed`.
		preflightPattern: func(c apierror.Code) bool { return c == apierror.OriginNotAllowed || c == apierror.Internal },
	}
	for _, rt := range routeTable {
		declared[rt.pattern()] = rt.documents
	}

	seen := map[apierror.Code]bool{}
	for pair := range observedCodes {
		route, code := pair[0], apierror.Code(pair[1])
		documents, ok := declared[route]
		if !ok {
			return fmt.Errorf("error %q answered by unknown route %q", code, route)
		}
		if !documents(code) {
			return fmt.Errorf("route %q answered %q, which the OpenAPI source does not list for it", route, code)
		}
		seen[code] = true
	}
	for _, c := range apierror.Codes() {
		if !seen[c] {
			return fmt.Errorf("no handler test provoked error code %q", c)
		}
	}
	return nil
}
