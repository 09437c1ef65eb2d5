package layout

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Limits a newcomer can read within: a file of at most maxFileLines
// lines, a function of at most maxComplexity paths.
const (
	maxFileLines  = 800
	maxComplexity = 30
)

// TestSizes checks every hand-written Go file of the module (tests and
// generated files aside) against maxFileLines, and each of its functions
// against maxComplexity.
func TestSizes(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	files := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if generated(src) {
			return nil
		}
		files++
		rel, _ := filepath.Rel(root, path)
		if lines := bytes.Count(src, []byte("\n")); lines > maxFileLines {
			t.Errorf("%s: %d lines, more than %d", rel, lines, maxFileLines)
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, src, 0)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			if fn, ok := decl.(*ast.FuncDecl); ok && fn.Body != nil {
				if c := complexity(fn.Body); c > maxComplexity {
					t.Errorf("%s: %s has cyclomatic complexity %d, more than %d", rel, fn.Name.Name, c, maxComplexity)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("read %d files: %s is not the module's root", files, root)
	}
}

// generated reports whether src carries the standard mark of generated
// code.
func generated(src []byte) bool {
	for _, line := range bytes.SplitN(src, []byte("\n"), 20) {
		if bytes.HasPrefix(line, []byte("// Code generated ")) && bytes.HasSuffix(line, []byte(" DO NOT EDIT.")) {
			return true
		}
	}
	return false
}

// complexity is McCabe's cyclomatic complexity of a function body, as
// gocyclo counts it: 1, plus one for each if, for, range, case with
// values, select case with a communication, && and ||. A function
// literal counts within the function that holds it.
func complexity(body ast.Node) int {
	c := 1
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.IfStmt, *ast.ForStmt, *ast.RangeStmt:
			c++
		case *ast.CaseClause:
			if n.List != nil {
				c++
			}
		case *ast.CommClause:
			if n.Comm != nil {
				c++
			}
		case *ast.BinaryExpr:
			if n.Op == token.LAND || n.Op == token.LOR {
				c++
			}
		}
		return true
	})
	return c
}

// TestComplexityCounts: the count on functions worked by hand, so that a
// broken count cannot let every function pass.
func TestComplexityCounts(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want int
	}{
		{"func f() {}", 1},
		{"func f(a, b bool) { if a && b || a {} }", 4},
		{"func f(x int) { switch x { case 1, 2: case 3: default: } }", 3},
		{"func f(xs []int) { for range xs { for i := 0; i < 2; i++ {} } }", 3},
		{"func f(c chan int) { select { case <-c: default: } }", 2},
		{"func f() { g := func(a bool) { if a {} }; _ = g }", 2},
	} {
		f, err := parser.ParseFile(token.NewFileSet(), "x.go", "package p\n"+tc.src, 0)
		if err != nil {
			t.Fatal(err)
		}
		if got := complexity(f.Decls[0].(*ast.FuncDecl).Body); got != tc.want {
			t.Errorf("%s: complexity %d, want %d", tc.src, got, tc.want)
		}
	}
}
