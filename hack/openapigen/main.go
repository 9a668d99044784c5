// Command openapigen writes the OpenAPI document of /v1 (apiserver/openapi.json) from its
// compact source (apiserver/openapi-source.yaml): the source states each operation once, and
// openapigen derives the HEAD twins, the CORS preflights, the standard response headers and
// the shared error responses by the rules in expand.go, and keeps the source's key order. It
// also writes the Go table of every operation's documented errors (gotable.go), which the
// server's route table reads, so that the codes are stated once, in the source.
//
//	go run ./hack/openapigen apiserver/openapi-source.yaml apiserver/openapi.json apiserver/zz_generated.errors.go
package main

import (
	"fmt"
	"os"
	"path/filepath"
)

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: openapigen SOURCE.yaml OUTPUT.json ERRORS.go")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2], os.Args[3]); err != nil {
		fmt.Fprintln(os.Stderr, "openapigen:", err)
		os.Exit(1)
	}
}

// run writes the document to outputPath and the error table to errorsPath, in the package of
// errorsPath's directory.
func run(sourcePath, outputPath, errorsPath string) error {
	source, err := os.ReadFile(sourcePath)
	if err != nil {
		return err
	}
	x, err := expand(source)
	if err != nil {
		return fmt.Errorf("%s: %w", sourcePath, err)
	}
	dir, err := filepath.Abs(filepath.Dir(errorsPath))
	if err != nil {
		return err
	}
	table, err := goErrorTable(filepath.Base(dir), filepath.ToSlash(sourcePath), x.operations)
	if err != nil {
		return err
	}
	if err := os.WriteFile(outputPath, x.document, 0o644); err != nil {
		return err
	}
	return os.WriteFile(errorsPath, table, 0o644)
}
