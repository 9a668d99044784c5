// Command openapigen writes the OpenAPI document of /v1 (apiserver/openapi.json) from its
// compact source (apiserver/openapi-source.yaml): the source states each operation once, and
// openapigen derives the HEAD twins, the CORS preflights, the standard response headers and
// the shared error responses by the rules in expand.go, and keeps the source's key order.
//
//	go run ./hack/openapigen apiserver/openapi-source.yaml apiserver/openapi.json
package main

import (
	"fmt"
	"os"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: openapigen SOURCE.yaml OUTPUT.json")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, "openapigen:", err)
		os.Exit(1)
	}
}

func run(sourcePath, outputPath string) error {
	source, err := os.ReadFile(sourcePath)
	if err != nil {
		return err
	}
	doc, err := expand(source)
	if err != nil {
		return fmt.Errorf("%s: %w", sourcePath, err)
	}
	return os.WriteFile(outputPath, doc, 0o644)
}
