// Command tenantscope fails when Go code outside the store's scope file writes a tenant
// condition by hand: every tenant-owned query takes its tenant condition from store.Scope.
//
// Usage: tenantscope [DIR]  (default ".")
package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// allowed is the one file that may write a tenant condition.
const allowed = "models/store/scope.go"

// tenantCondition matches a parameterised condition on a tenant column: "tenant_id = ?",
// "t.tenant_id IN ?", "tenant_id = $2".
var tenantCondition = regexp.MustCompile(`(?i)\btenant_id\s*(=|<>|!=|\bin\b)\s*(\?|\$\d|\()`)

// Finding is one hand-written tenant condition.
type Finding struct {
	Pos  token.Position
	Text string
}

func (f Finding) String() string {
	return fmt.Sprintf("%s: tenant condition written by hand (%s): take it from store.Scope", f.Pos, f.Text)
}

func main() {
	root := "."
	if len(os.Args) > 1 {
		root = os.Args[1]
	}
	findings, err := Check(root)
	if err != nil {
		fmt.Fprintln(os.Stderr, "tenantscope:", err)
		os.Exit(2)
	}
	for _, f := range findings {
		fmt.Println(f)
	}
	if len(findings) > 0 {
		os.Exit(1)
	}
}

// Check reports every hand-written tenant condition in the non-test Go files under root.
func Check(root string) ([]Finding, error) {
	var out []Finding
	fset := token.NewFileSet()
	//nolint:gosec // G703: root is the directory the developer names on the command line
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != root && (strings.HasPrefix(name, ".") || name == "node_modules" || name == "testdata" || name == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		if rel, err := filepath.Rel(root, path); err == nil && filepath.ToSlash(rel) == allowed {
			return nil
		}
		file, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(file, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if ok && lit.Kind == token.STRING {
				if m := tenantCondition.FindString(lit.Value); m != "" {
					out = append(out, Finding{Pos: fset.Position(lit.Pos()), Text: m})
				}
			}
			return true
		})
		return nil
	})
	return out, err
}
