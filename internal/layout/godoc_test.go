package layout

import (
	"bytes"
	"go/ast"
	"go/doc"
	"go/parser"
	"go/printer"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// screenLines is a screen of a terminal: what `go doc pkg Name` may print
// for one exported name, so that a reader sees a name's whole page at
// once.
const screenLines = 60

// TestDocScreens holds `go doc` of every exported name of every package
// to a screen: the name's declaration, its doc comment, and for a type
// the one-line signatures of its constructors and methods, as go doc
// prints them (docLines). A name whose page runs longer has outgrown
// its package: its doc wants a file of docs/, or the name wants
// splitting.
func TestDocScreens(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	dirs := map[string]bool{}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") {
			dirs[filepath.Dir(path)] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	names := 0
	for dir := range dirs {
		pages, err := docPages(dir)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, dir)
		for name, lines := range pages {
			names++
			if lines > screenLines {
				t.Errorf("go doc ./%s %s prints %d lines, more than a screen (%d)", filepath.ToSlash(rel), name, lines, screenLines)
			}
		}
	}
	if names < 100 {
		t.Fatalf("measured %d exported names: the walk missed the module's packages", names)
	}
}

// docPages returns, for every exported name of the package in dir (its
// types, functions, variables and constants, commands aside), how many
// lines go doc prints for it.
func docPages(dir string) (map[string]int, error) {
	fset := token.NewFileSet()
	files := map[string]*ast.File{}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		if f.Name.Name == "main" {
			return nil, nil
		}
		files[name] = f
	}
	if len(files) == 0 {
		return nil, nil
	}
	keys := make([]string, 0, len(files))
	for k := range files {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	list := make([]*ast.File, 0, len(keys))
	for _, k := range keys {
		list = append(list, files[k])
	}
	p, err := doc.NewFromFiles(fset, list, "x")
	if err != nil {
		return nil, err
	}
	pages := map[string]int{}
	for _, f := range p.Funcs {
		pages[f.Name] = docLines(fset, f.Decl, f.Doc, 0)
	}
	for _, v := range append(append([]*doc.Value{}, p.Vars...), p.Consts...) {
		for _, n := range v.Names {
			if ast.IsExported(n) {
				pages[n] = docLines(fset, v.Decl, v.Doc, 0)
			}
		}
	}
	for _, ty := range p.Types {
		pages[ty.Name] = docLines(fset, ty.Decl, ty.Doc, len(ty.Funcs)+len(ty.Methods)+len(ty.Consts)+len(ty.Vars))
		for _, m := range append(append([]*doc.Func{}, ty.Funcs...), ty.Methods...) {
			pages[ty.Name+"."+m.Name] = docLines(fset, m.Decl, m.Doc, 0)
		}
	}
	return pages, nil
}

// docLines is the length of a go doc page: the declaration as printed
// (bodies dropped), the doc comment as go doc wraps it (a line of the
// source is a line of the page, near enough: both wrap at about 80
// columns), a blank line between, and extra one-line entries.
func docLines(fset *token.FileSet, decl ast.Node, comment string, extra int) int {
	switch d := decl.(type) {
	case *ast.FuncDecl:
		c := *d
		c.Body, c.Doc = nil, nil
		decl = &c
	case *ast.GenDecl:
		c := *d
		c.Doc = nil
		decl = &c
	}
	var b bytes.Buffer
	if err := printer.Fprint(&b, fset, decl); err != nil {
		return 0
	}
	lines := strings.Count(strings.TrimSpace(b.String()), "\n") + 1
	if comment != "" {
		lines += strings.Count(strings.TrimSpace(comment), "\n") + 2
	}
	// go doc's header, "package p // import …", and a blank line.
	return lines + extra + 2
}
