package layout

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/transformer-cookbook/verify"

// allowed lists, for every package of the module, the packages of the
// module it may import (doc.go draws the same map).
var allowed = map[string][]string{
	"exact":                     {"internal/plural"},
	"exact/cpwl":                {"exact"},
	"numeric/internal/bigmath":  nil,
	"numeric":                   {"exact", "numeric/internal/bigmath", "internal/suggest"},
	"model":                     {"numeric", "internal/plural"},
	"model/internal/modeltest":  {"model", "numeric"},
	"model/eval":                {"model", "numeric"},
	"model/modelfile":           {"model", "numeric", "internal/plural"},
	"recipes/stream":            {"model", "model/eval", "numeric"},
	"recipes/blocks":            {"recipes/stream", "model", "numeric"},
	"recipes":                   {"recipes/blocks", "recipes/stream", "model", "model/eval", "numeric", "exact", "internal/plural", "internal/suggest"},
	"certify/recheck":           {"model", "model/eval", "numeric", "exact"},
	"certify":                   {"certify/recheck", "recipes", "model", "model/eval", "numeric", "internal/plural"},
	"certify/positionwise":      {"recipes", "model", "model/eval", "numeric", "internal/plural"},
	"check":                     {"certify", "certify/positionwise", "certify/recheck", "recipes", "model", "model/eval", "numeric", "internal/gcfloor", "internal/plural"},
	"diagnose":                  {"check", "recipes", "model", "model/eval", "numeric"},
	"frontier":                  {"diagnose", "check", "recipes", "model", "numeric", "internal/atomicfile", "internal/limits", "internal/plural"},
	"proofs":                    {"check", "recipes", "recipes/blocks", "recipes/stream", "model", "model/eval", "numeric", "exact", "exact/cpwl", "internal/plural", "internal/suggest"},
	"proofs/internal/poly":      nil,
	"proofs/internal/prooftest": {"proofs", "recipes/stream", "model", "numeric"},
	"proofs/basics":             {"proofs", "proofs/internal/poly", "proofs/internal/prooftest", "check", "recipes", "recipes/blocks", "recipes/stream", "model", "model/eval", "numeric", "exact", "exact/cpwl", "internal/plural"},
	"proofs/ffn":                {"proofs", "proofs/internal/poly", "proofs/internal/prooftest", "check", "recipes", "recipes/blocks", "recipes/stream", "model", "model/eval", "numeric", "exact", "exact/cpwl", "internal/plural"},
	"proofs/attention":          {"proofs", "proofs/internal/poly", "proofs/internal/prooftest", "check", "recipes", "recipes/blocks", "recipes/stream", "model", "model/eval", "numeric", "exact", "exact/cpwl", "internal/plural"},
	"proofs/layernorm":          {"proofs", "proofs/internal/poly", "proofs/internal/prooftest", "check", "recipes", "recipes/blocks", "recipes/stream", "model", "model/eval", "numeric", "exact", "exact/cpwl", "internal/plural"},
	"proofs/rounding":           {"proofs", "proofs/internal/poly", "proofs/internal/prooftest", "check", "recipes", "recipes/blocks", "recipes/stream", "model", "model/eval", "numeric", "exact", "exact/cpwl", "internal/plural"},
	"proofs/assembly":           {"proofs", "proofs/internal/poly", "proofs/internal/prooftest", "check", "recipes", "recipes/blocks", "recipes/stream", "model", "model/eval", "numeric", "exact", "exact/cpwl", "internal/plural"},
	"proofs/examples":           {"proofs", "proofs/internal/poly", "proofs/internal/prooftest", "check", "recipes", "recipes/blocks", "recipes/stream", "model", "model/eval", "numeric", "exact", "exact/cpwl", "internal/plural"},
	"proofs/all":                {"proofs/basics", "proofs/ffn", "proofs/attention", "proofs/layernorm", "proofs/rounding", "proofs/assembly", "proofs/examples", "proofs/internal/prooftest", "proofs", "model"},
	"bench":                     {"check", "recipes", "model", "model/eval", "numeric", "internal/plural"},
	"fuzz":                      nil,
	"internal/atomicfile":       nil,
	"internal/gcfloor":          nil,
	"internal/limits":           nil,
	"internal/testenv":          nil,
	"internal/plural":           nil,
	"internal/suggest":          nil,
	"internal/layout":           nil,
	"internal/mutation":         nil,
	"cmd/verify":                {"frontier", "diagnose", "proofs", "proofs/all", "bench", "check", "certify", "certify/recheck", "recipes", "recipes/blocks", "recipes/stream", "model", "model/eval", "model/modelfile", "numeric", "exact", "exact/cpwl", "internal/atomicfile", "internal/gcfloor", "internal/limits", "internal/plural", "internal/suggest"},
}

// alsoInTests lists, for a package whose internal tests need them,
// packages only those tests may import: the model files' round trips run
// what they read back (a file is lossless when the model read computes
// what the original computes), and the run is package model/eval's; both
// build their test models with model/internal/modeltest.
var alsoInTests = map[string][]string{
	"model/modelfile": {"model/eval", "model/internal/modeltest"},
	"model/eval":      {"model/internal/modeltest"},
}

// TestImports checks every import of every Go file against allowed.
func TestImports(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	fset := token.NewFileSet()
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
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		pkg := filepath.ToSlash(rel)
		rules, known := allowed[pkg]
		if !known {
			t.Errorf("%s: package %s is not on the map (add it to allowed and to doc.go)", path, pkg)
			return nil
		}
		seen[pkg] = true
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		test := strings.HasSuffix(path, "_test.go")
		external := strings.HasSuffix(f.Name.Name, "_test")
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if p != module && !strings.HasPrefix(p, module+"/") {
				continue
			}
			dep := strings.TrimPrefix(strings.TrimPrefix(p, module), "/")
			switch {
			case slices.Contains(rules, dep):
			case pkg == "fuzz" || external:
				if dep == "cmd/verify" {
					t.Errorf("%s imports the command line", path)
				}
			case test && dep == "internal/testenv":
			case test && slices.Contains(alsoInTests[pkg], dep):
			default:
				t.Errorf("%s: %s may not import %s (it may import: %s)", path, pkg, dep, strings.Join(rules, ", "))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var missing []string
	for pkg := range allowed {
		if !seen[pkg] {
			missing = append(missing, pkg)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("the map lists packages that do not exist: %s", strings.Join(missing, ", "))
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("%s is not the module's root: %v", root, err)
	}
}
