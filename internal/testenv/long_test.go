package testenv

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// skipRecorder is a testing.TB whose Skip records its message instead of
// stopping the test, so that Long can be watched deciding.
type skipRecorder struct {
	testing.TB
	skipped string
}

func (r *skipRecorder) Helper()          {}
func (r *skipRecorder) Skip(args ...any) { r.skipped = fmt.Sprint(args...) }

// TestSkipUnlessLong: only VERIFY_LONG=1 runs a long test, and a skipped one says
// how to run it.
func TestSkipUnlessLong(t *testing.T) {
	for _, tc := range []struct {
		value string
		set   bool
		runs  bool
	}{
		{"", false, false},
		{"", true, false},
		{"0", true, false},
		{"true", true, false},
		{"1 ", true, false},
		{"1", true, true},
	} {
		if tc.set {
			t.Setenv(LongVar, tc.value)
		} else {
			t.Setenv(LongVar, "")
		}
		r := &skipRecorder{TB: t}
		Long(r)
		if runs := r.skipped == ""; runs != tc.runs {
			t.Errorf("VERIFY_LONG=%q: runs = %v, want %v", tc.value, runs, tc.runs)
		}
		if !tc.runs && !strings.Contains(r.skipped, "VERIFY_LONG=1") {
			t.Errorf("VERIFY_LONG=%q: the skip message %q does not say how to run the test", tc.value, r.skipped)
		}
	}
}

// TestNamesOfLongTests: every test of the module that calls Long is
// named TestLong…, and every TestLong… calls it first, so that
// go test -run '^TestLong' runs the long tier and nothing else, and the
// default tier runs none of it.
func TestNamesOfLongTests(t *testing.T) {
	root := filepath.Join("..", "..")
	long := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil || fn.Recv != nil {
				continue
			}
			named := strings.HasPrefix(fn.Name.Name, "TestLong")
			first := len(fn.Body.List) > 0 && callsLong(fn.Body.List[0])
			calls := false
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				if c, ok := n.(*ast.CallExpr); ok && isLong(c.Fun) {
					calls = true
				}
				return true
			})
			switch {
			case named && !first:
				t.Errorf("%s: %s does not call testenv.Long first", path, fn.Name.Name)
			case calls && !named:
				t.Errorf("%s: %s calls testenv.Long but is not named TestLong…", path, fn.Name.Name)
			case named:
				long++
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if long == 0 {
		t.Error("no long test found: the walk saw none of the module's tests")
	}
	t.Logf("%d long tests", long)
}

// callsLong reports whether s is the statement testenv.Long(t).
func callsLong(s ast.Stmt) bool {
	e, ok := s.(*ast.ExprStmt)
	if !ok {
		return false
	}
	c, ok := e.X.(*ast.CallExpr)
	return ok && isLong(c.Fun)
}

// isLong reports whether f names testenv.Long. (This package's own
// tests call it as Long, on a recorder, and are no long tests.)
func isLong(f ast.Expr) bool {
	s, ok := f.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	x, ok := s.X.(*ast.Ident)
	return ok && x.Name == "testenv" && s.Sel.Name == "Long"
}
