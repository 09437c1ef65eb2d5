package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/transformer-cookbook/verify/check"
	"github.com/transformer-cookbook/verify/internal/atomicfile"
	"github.com/transformer-cookbook/verify/internal/limits"
	"github.com/transformer-cookbook/verify/internal/plural"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/model/modelfile"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes"
)

// cmdExport writes a recipe's model to a file: the engine's JSON format
// with exact weights (.json), or safetensors (.safetensors) with tensors
// of one dtype (F64 unless --dtype says otherwise) and the architecture
// in the metadata. A weight the dtype does not hold exactly is refused,
// by name, unless --round-weights is given; then every weight rounded is
// listed. --out - writes the model to stdout (JSON unless --format
// safetensors) and the summary to stderr.
func cmdExport(args []string, stdout, stderr io.Writer) error {
	o := new(exportOptions)
	positional, err := parseFlags("export", args, o)
	if err != nil {
		return err
	}
	if err := noPositional("export", positional); err != nil {
		return err
	}
	e, err := o.export()
	if err != nil {
		return err
	}
	// Nothing is caught: Ctrl-C (or TERM, HUP, QUIT) ends the export at
	// once, and the signal handler removes the temporary file.
	if e.path != "-" {
		if err := atomicfile.Check(e.path); err != nil {
			return badInput("%v", err)
		}
		noteStale(stderr, e.path)
	}
	m, err := e.build()
	if err != nil {
		return err
	}
	rounded, err := e.write(m, stdout, stderr)
	if err != nil {
		return err
	}
	e.summary(m, rounded, stdout, stderr)
	return nil
}

// An export is what export writes: the model of r for lengths up to n,
// to path, in the format of its extension.
type export struct {
	o      *exportOptions
	r      *recipes.Recipe
	w      model.Weighting
	params map[string]string
	n      int
	path   string
	ext    string // ".json" or ".safetensors"
	dtype  string // "" for JSON
	round  bool
}

// export resolves the options, in the order their faults are reported.
func (o *exportOptions) export() (*export, error) {
	r, err := o.recipeNamed()
	if err != nil {
		return nil, err
	}
	ws, _, err := o.weightingsOf(r)
	if err != nil {
		return nil, err
	}
	if o.weighting.text == "all" {
		return nil, badInput("export writes one model: name one weighting (%s)", weightingNames(r.Weightings))
	}
	e := &export{o: o, r: r, w: ws[0], n: r.DefaultMaxN, round: o.roundWeights.on()}
	if e.params, err = o.params.parsed(); err != nil {
		return nil, err
	}
	if e.n == 0 {
		e.n = 64
	}
	if o.n.set {
		var ok bool
		if e.n, ok = o.n.within(max(1, r.MinN), 1<<16); !ok {
			return nil, badInput("--n must be an integer from %d to %d (the largest length the model is exported for), got %q", max(1, r.MinN), 1<<16, o.n.text)
		}
	}
	if err := e.format(); err != nil {
		return nil, err
	}
	return e, e.readDtype()
}

// format reads --out and --format: the file and its format.
func (e *export) format() error {
	o := e.o
	if !o.out.set {
		return badInput("export needs --out FILE.json or FILE.safetensors (or -, stdout)")
	}
	e.path = o.out.text
	e.ext = strings.ToLower(filepath.Ext(e.path))
	if f := o.format.text; o.format.set {
		switch {
		case f != "json" && f != "safetensors":
			return badInput("--format must be json or safetensors, got %q", f)
		case e.path != "-" && e.ext != "."+f:
			return badInput("--format %s does not agree with --out %q: the file's extension names its format", f, e.path)
		}
	}
	if e.path == "-" {
		e.ext = ".json"
		if o.format.text == "safetensors" {
			e.ext = ".safetensors"
		}
	}
	return nil
}

// readDtype reads --dtype and --round-weights, which apply to
// safetensors alone.
func (e *export) readDtype() error {
	o := e.o
	e.dtype = strings.ToUpper(o.dtype.text)
	if o.dtype.set && o.dtype.text == "" {
		return badInput("--dtype is empty: give one of %s", strings.Join(modelfile.SafetensorsDtypes(), ", "))
	}
	switch {
	case e.ext != ".json" && e.ext != ".safetensors":
		return badInput("--out: %q must end in .json (exact weights) or .safetensors, or be - (stdout)", e.path)
	case e.ext == ".json" && e.dtype != "":
		return badInput("--dtype applies to .safetensors files (and to --format safetensors with --out -); the JSON format keeps weights exact")
	case e.ext == ".json" && e.round:
		return badInput("--round-weights applies to .safetensors files (and to --format safetensors with --out -); the JSON format keeps weights exact")
	case e.ext == ".safetensors" && e.dtype == "":
		e.dtype = "F64"
	case e.ext == ".safetensors" && !slices.Contains(modelfile.SafetensorsDtypes(), e.dtype):
		return badInput("--dtype must be one of %s, got %q", strings.Join(modelfile.SafetensorsDtypes(), ", "), o.dtype.text)
	}
	return nil
}

// build constructs the model, refusing one whose file would not fit in
// memory.
func (e *export) build() (*model.Model, error) {
	con, err := e.r.Construct(e.w, e.n, e.params)
	if err != nil {
		return nil, badInput("%v", err)
	}
	m := con.Model
	if need, avail := exportSize(m, e.n), limits.Memory(); !e.o.force.on() && avail > 0 && need > avail/2 {
		return nil, badInput("exporting %s for n ≤ %d would take about %s (%d positions' encodings of width %d), and %s is available; lower --n or pass --force",
			e.r.Name, e.n, check.GiB(need), positionRows(m, e.n), m.D, check.GiB(avail))
	}
	return m, nil
}

// name is how the summary names what was written.
func (e *export) name() string {
	if e.path == "-" {
		return "the model"
	}
	return e.path
}

// write writes the model, returning the weights rounded to the dtype.
func (e *export) write(m *model.Model, stdout, stderr io.Writer) ([]modelfile.RoundedWeight, error) {
	bar := newProgress(stderr, &e.o.commonOptions)
	ctx := modelfile.WithProgress(context.Background(), func(done, total int) {
		bar.show(fmt.Sprintf("%s n ≤ %d", e.r.Name, e.n), done, total, "positions", float64(done)/float64(total))
	})
	write := func(w io.Writer) error { return modelfile.WriteJSON(ctx, w, m, e.n) }
	var rounded []modelfile.RoundedWeight
	switch {
	case e.ext == ".safetensors" && e.round:
		write = func(w io.Writer) (err error) {
			rounded, err = modelfile.WriteSafetensorsRounded(ctx, w, m, e.n, e.dtype)
			return err
		}
	case e.ext == ".safetensors":
		write = func(w io.Writer) error { return modelfile.WriteSafetensors(ctx, w, m, e.n, e.dtype) }
	}
	err := writeModel(e.path, stdout, write)
	bar.clear()
	if err != nil {
		var ue *modelfile.UnrepresentableError
		if errors.As(err, &ue) {
			return nil, badInput("%s not written: %v; export to JSON to keep every weight exact, or pass --round-weights to store each rounded to the nearest %s number", e.name(), ue, e.dtype)
		}
		return nil, badInput("%v", err)
	}
	return rounded, nil
}

// summary says what was written, on stderr when the model went to
// stdout.
func (e *export) summary(m *model.Model, rounded []modelfile.RoundedWeight, stdout, stderr io.Writer) {
	report := stdout
	if e.path == "-" {
		report = stderr
	}
	fmt.Fprintf(report, "wrote %s: %s (§%s) for n ≤ %d, width %d, %s", e.name(), m.Name, e.r.Section, e.n, m.D, plural.Of(len(m.Layers), "layer"))
	if e.dtype != "" {
		fmt.Fprintf(report, ", %s", e.dtype)
	}
	switch len(rounded) {
	case 0:
		fmt.Fprintln(report)
	case 1:
		fmt.Fprintf(report, "; 1 weight rounded to %s:\n", e.dtype)
	default:
		fmt.Fprintf(report, "; %d weights rounded to %s:\n", len(rounded), e.dtype)
	}
	for _, w := range rounded {
		fmt.Fprintf(report, "  rounded %s\n", w)
	}
}

// writeModel writes a model file atomically, or, for path "-", to stdout
// whole or not at all: a weight refused half way leaves nothing there.
func writeModel(path string, stdout io.Writer, write func(io.Writer) error) error {
	if path != "-" {
		return atomicfile.Write(path, write)
	}
	var buf bytes.Buffer
	if err := write(&buf); err != nil {
		return err
	}
	_, err := buf.WriteTo(stdout)
	return err
}

// readModelFile reads the model of --model (at most --max-input-size
// bytes), written by export (or by hand, or from
// PyTorch through safetensors), by the file's extension, or from
// standard input when path is "-", by its content (modelFormatOf); it
// returns the largest length the file's position table covers and, for
// safetensors, the dtypes of its tensors, widest first.
func (o *commonOptions) readModelFile() (*model.Model, int, []string, error) {
	m, n, dtypes, _, err := o.readModelFileDigest()
	return m, n, dtypes, err
}

// readModelFileDigest is readModelFile, with the SHA-256 of the file's
// bytes (hex): what a certificate names the model it is about by.
func (o *commonOptions) readModelFileDigest() (*model.Model, int, []string, string, error) {
	path := o.model.text
	limit, err := o.inputLimit()
	if err != nil {
		return nil, 0, nil, "", err
	}
	name := path
	format := strings.TrimPrefix(strings.ToLower(filepath.Ext(path)), ".")
	if path == "-" {
		name = "standard input"
	} else if format != "json" && format != "safetensors" {
		// Before the file is opened: /dev/zero is not read to learn
		// that it is no model.
		return nil, 0, nil, "", badInput("--model: %q must end in .json or .safetensors (or be -, standard input)", path)
	}
	data, err := readInput(path, "--model", limit)
	if err != nil {
		return nil, 0, nil, "", err
	}
	// Reading takes up to modelfile.MaxReadMultiple times the file: refused
	// before it starts where that is more than the machine has.
	need := uint64(len(data)) * modelfile.MaxReadMultiple
	if avail := limits.Memory(); !o.force.on() && avail > 0 && need > avail {
		return nil, 0, nil, "", badInput("--model: reading %s (%s) may take %s (%d times its size), more than the %s available; --force reads it anyway",
			name, sizeText(int64(len(data))), check.GiB(need), modelfile.MaxReadMultiple, check.GiB(avail))
	}
	// Editors on some systems start text files with a byte-order mark.
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if path == "-" {
		if format, err = modelFormatOf(data); err != nil {
			return nil, 0, nil, "", badInput("--model -: %v", err)
		}
	}
	f := bytes.NewReader(data)
	var m *model.Model
	var n int
	var dtypes []string
	switch format {
	case "json":
		m, n, err = modelfile.ReadJSON(f)
	case "safetensors":
		m, n, dtypes, err = modelfile.ReadSafetensorsDtypes(f)
	default:
		return nil, 0, nil, "", badInput("--model: %q must end in .json or .safetensors (or be -, standard input)", path)
	}
	if err != nil {
		return nil, 0, nil, "", badInput("%s: %v", name, err)
	}
	sum := sha256.Sum256(data)
	return m, n, dtypes, hex.EncodeToString(sum[:]), nil
}

// modelName is how reports name the model of --model path.
func modelName(path string) string {
	if path == "-" {
		return "standard input"
	}
	return path
}

// modelFormatOf tells a model file's format from its first bytes, for a
// model read from standard input, which has no extension. A safetensors
// file starts with its header's length, 8 bytes little-endian, then the
// header, a JSON object: byte 8 is '{', and byte 7, the length's top
// byte, is 0 for any header shorter than 2⁵⁶ bytes. A JSON model starts
// with '{' after optional white space, and JSON text holds no 0 byte:
// the two cannot be confused.
func modelFormatOf(data []byte) (string, error) {
	if len(data) > 8 && data[7] == 0 && data[8] == '{' {
		return "safetensors", nil
	}
	if t := bytes.TrimLeft(data, " \t\r\n"); len(t) > 0 && t[0] == '{' {
		return "json", nil
	}
	if len(data) == 0 {
		return "", fmt.Errorf("standard input is empty; pipe a model into it (verify export --out - …)")
	}
	return "", fmt.Errorf("standard input is neither a JSON model (starting with '{') nor a safetensors file (8 bytes of header length, then '{')")
}

// dtypePrecision is the precision a model from a safetensors file runs at
// without --precision: that of its dtype, or with mixed dtypes the
// narrowest that holds them all; and the note that says so.
func dtypePrecision(dtypes []string) (numeric.Precision, string) {
	p, from, _ := modelfile.DtypesPrecision(dtypes)
	if len(dtypes) == 1 {
		return p, fmt.Sprintf("precision %s: the model file's dtype, %s (--precision overrides)", p, from)
	}
	return p, fmt.Sprintf("precision %s: the model file's dtypes are %s, and %s is the narrowest that holds them all (--precision overrides)", p, strings.Join(dtypes, ", "), from)
}

// specRecipe reads --spec, the recipe whose reference a model from a
// file is checked against.
func (o *commonOptions) specRecipe() (*recipes.Recipe, error) {
	name, ok := o.spec.text, o.spec.set
	if !ok {
		return nil, badInput("--model needs --spec NAME, the reference to check it against (any recipe: dyck1, dyck-kd, induction-recent, lookup, pred, first, avg-prefix, boolean, …)")
	}
	if o.recipe.set {
		return nil, badInput("give --spec NAME with --model, not --recipe")
	}
	r, err := recipes.Get(name)
	if err != nil {
		return nil, badInput("--spec: %v", err)
	}
	return r, nil
}

// positionRows is how many position vectors a file for lengths ≤ n
// holds: none for a formula, n when the encodings do not depend on the
// length (known from the model, or else sampled at a few lengths), else
// one block per length, n(n+1)/2.
func positionRows(m *model.Model, n int) int {
	if m.Position == nil {
		return 0
	}
	dep, known := m.Position.DependsOnN()
	switch {
	case known && dep:
		return 0
	case known && !dep:
		return n
	}
	for _, k := range []int{1, 2, n / 2, n - 1} {
		if k < 1 || k >= n {
			continue
		}
		for _, i := range []int{1, k} {
			a, b := m.Position.Vector(i, k), m.Position.Vector(i, n)
			for c := range a {
				if c < len(b) && a[c].String() != b[c].String() {
					return n * (n + 1) / 2
				}
			}
		}
	}
	return n
}

// exportSize is about how many bytes writing a model file takes in
// memory: its position table and weights, some 32 bytes a number.
func exportSize(m *model.Model, n int) uint64 {
	return 32 * (uint64(positionRows(m, n))*uint64(m.D) + check.Weights(m))
}
