// Package comments checks what Go comments say about the repository itself.
package comments

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/swaprouter/swaprouter/internal/testing/testenv"
)

// internalPath is a mention of one of our internal packages (or files) in a comment; a
// path inside another module's internal tree (crypto/internal/...) is not ours.
var internalPath = regexp.MustCompile(`(?:^|[^\w/.-])(internal/[a-z0-9_]+(?:/[a-z0-9_]+)*)(\.go)?`)

// Every internal/<x> path a Go comment names exists: packages get renamed and merged, and a
// comment pointing at the old name sends a reader nowhere.
func TestCommentsNameInternalPathsThatExist(t *testing.T) {
	root := testenv.RepoRoot()
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case "bin", "node_modules", "testdata", ".git":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, group := range f.Comments {
			for _, m := range internalPath.FindAllStringSubmatch(group.Text(), -1) {
				mentioned := filepath.Join(root, m[1]+m[2])
				if _, err := os.Stat(mentioned); err != nil {
					rel, _ := filepath.Rel(root, path)
					t.Errorf("%s:%d: a comment names %s, which does not exist", rel, fset.Position(group.Pos()).Line, m[1]+m[2])
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
