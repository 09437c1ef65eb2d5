package modelfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Model files are read in two steps: the JSON text into a tree (this
// file), then the tree into a Model by a walker that knows every field's
// path (filedecode.go). A tree rather than json.Unmarshal into structs,
// because a strict reader must name the path of whatever is wrong — an
// unknown field three objects deep, a number where a string belongs, a
// key given twice — and encoding/json reports those without a path or,
// for duplicate keys, not at all.

// maxJSONDepth bounds the nesting of a model file; the deepest legitimate
// value (a position table that depends on n) is five levels down.
const maxJSONDepth = 32

// maxJSONArray bounds the entries of one array: the longest legitimate
// ones, a matrix's rows, a row's entries and a position table's
// positions, hold one entry per component or position (at most 65,536
// positions are exported, and a width of 131,072 would make a matrix of
// 17 billion weights). An array is refused when it reaches the bound,
// before more entries are stored, so that a file of millions of names
// costs little more memory than its text.
const maxJSONArray = 1 << 17

// maxJSONString bounds a string's bytes: a weight's text is at most the
// 100,000 characters an exact number may take (exact.ParseRat), or an
// expression of a few of them; a name is short. A longer string is
// refused before it is copied.
const maxJSONString = 1 << 20

// jsonObject is a JSON object of the tree, with its path in the file
// (like "layers[2].attention"), for errors.
type jsonObject struct {
	path string
	keys []string // in the order of the file
	vals map[string]any
}

// The values of the tree are *jsonObject, []any, string, json.Number,
// bool and nil.

// decodeTree reads one JSON object, and nothing after it, from r; root
// is the object's path in errors ("" for a file); a string longer than
// maxString bytes is refused (maxJSONString for a model's JSON; a
// safetensors header, whose metadata holds the whole architecture as one
// string, passes its own length).
// encoding/json checks the syntax (and finds the object's end); a small
// scanner that relies on that check then builds the tree, keeping the
// order of fields and refusing repeated ones. (json.Decoder.Token would
// do both, but allocates an error for every scalar: a matrix of a million
// weights took seconds.)
func decodeTree(r io.Reader, root string, maxString int) (*jsonObject, error) {
	data, err := readAll(r)
	if err != nil {
		return nil, err
	}
	if enc := wideEncoding(data); enc != "" {
		return nil, fmt.Errorf("the file is %s text; model files are UTF-8 (convert it, e.g. iconv -f %s -t UTF-8)", enc, enc)
	}
	if !utf8.Valid(data) {
		at := 0
		for at < len(data) {
			r, size := utf8.DecodeRune(data[at:])
			if r == utf8.RuneError && size <= 1 {
				break
			}
			at += size
		}
		return nil, fmt.Errorf("invalid UTF-8 at %s: model files are UTF-8 text", place(data, at))
	}
	if !json.Valid(data) {
		return nil, syntaxError(data)
	}
	start := len(data) - len(bytes.TrimLeft(data, " \t\r\n"))
	if data[start] != '{' {
		return nil, fmt.Errorf("the file is not a JSON object")
	}
	sc := &treeScanner{src: data, pos: start, maxString: maxString}
	v, err := sc.value(treePath{parent: root, index: -1}, 0)
	if err != nil {
		return nil, err
	}
	return v.(*jsonObject), nil
}

// readAll is io.ReadAll, reading a reader that knows its length (a
// bytes.Reader, a strings.Reader) in one allocation instead of a doubling
// series: a model file can take hundreds of megabytes.
func readAll(r io.Reader) ([]byte, error) {
	sized, ok := r.(interface{ Len() int })
	if !ok {
		return io.ReadAll(r)
	}
	data := make([]byte, sized.Len())
	if _, err := io.ReadFull(r, data); err != nil {
		return nil, err
	}
	// Whatever arrived after Len was taken.
	rest, err := io.ReadAll(r)
	return append(data, rest...), err
}

// syntaxError says what is wrong with JSON text that json.Valid refused:
// empty, truncated, a syntax error at a byte, or data after the object.
func syntaxError(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		var syn *json.SyntaxError
		switch {
		case err == io.EOF:
			return fmt.Errorf("empty file")
		case errors.Is(err, io.ErrUnexpectedEOF):
			return fmt.Errorf("truncated file: the JSON ends at byte %d before it is complete", len(data))
		case errors.As(err, &syn):
			// Offset counts the bytes read, the offending one included.
			return fmt.Errorf("JSON syntax error at %s: %w", place(data, int(syn.Offset)-1), err)
		}
		return err
	}
	rest := bytes.TrimLeft(data[dec.InputOffset():], " \t\r\n")
	return fmt.Errorf("data after the JSON object, at %s", place(data, len(data)-len(rest)))
}

// place says where byte i (0-based) of data is, as an editor shows it:
// "line 3, column 10 (byte 66)", the line and the column (in characters)
// counted from 1, and the byte too.
func place(data []byte, i int) string {
	i = max(0, min(i, len(data)))
	start := bytes.LastIndexByte(data[:i], '\n') + 1
	line := bytes.Count(data[:start], []byte{'\n'}) + 1
	col := utf8.RuneCount(data[start:i]) + 1
	return fmt.Sprintf("line %d, column %d (byte %d)", line, col, i+1)
}

// wideEncoding names the encoding of text in UTF-16 or UTF-32 (by its
// byte-order mark, or the zero bytes that ASCII has in them), or "".
func wideEncoding(data []byte) string {
	switch {
	case bytes.HasPrefix(data, []byte{0, 0, 0xfe, 0xff}), len(data) >= 4 && data[0] == 0 && data[1] == 0 && data[2] == 0 && data[3] != 0:
		return "UTF-32BE"
	case bytes.HasPrefix(data, []byte{0xff, 0xfe, 0, 0}), len(data) >= 4 && data[0] != 0 && data[1] == 0 && data[2] == 0 && data[3] == 0:
		return "UTF-32LE"
	case bytes.HasPrefix(data, []byte{0xfe, 0xff}), len(data) >= 2 && data[0] == 0 && data[1] != 0:
		return "UTF-16BE"
	case bytes.HasPrefix(data, []byte{0xff, 0xfe}), len(data) >= 2 && data[0] != 0 && data[1] == 0:
		return "UTF-16LE"
	}
	return ""
}

// treeScanner builds the tree of JSON text whose syntax encoding/json has
// checked, so that it only has to tell values apart.
type treeScanner struct {
	src       []byte
	pos       int
	maxString int
	scalars   map[string]any // interned scalars, by their text
	scratch   [][]any        // an array's entries as they are read, by depth
}

// maxInterned bounds the scalars a tree shares: a model's weights are
// mostly a few values (0, 1, −1, a bias) written again and again, and
// each entry of an array then costs its slot (16 bytes) instead of a new
// value; past the bound, a value is made for each entry. The bound is
// small because the map costs more than the values it shares in a file
// of distinct weights (a trained model's).
const maxInterned = 1 << 12

// scalar returns the value of the string (quoted, with escapes or not)
// or number src[start:pos], the same value for the same text (values of
// the tree are never changed).
func (sc *treeScanner) scalar(start int, quoted, escaped bool) (any, error) {
	if v, ok := sc.scalars[string(sc.src[start:sc.pos])]; ok {
		return v, nil
	}
	var v any = json.Number(sc.src[start:sc.pos])
	if quoted {
		s, err := sc.stringAt(start, escaped)
		if err != nil {
			return nil, err
		}
		v = s
	}
	if sc.scalars == nil {
		sc.scalars = map[string]any{}
	}
	if len(sc.scalars) < maxInterned {
		sc.scalars[string(sc.src[start:sc.pos])] = v
	}
	return v, nil
}

func (sc *treeScanner) skipSpace() {
	for sc.pos < len(sc.src) && strings.IndexByte(" \t\r\n", sc.src[sc.pos]) >= 0 {
		sc.pos++
	}
}

// treePath is where a value of the tree is: the key or index in the
// container at path parent, or parent itself when neither is set (the
// root). A value's path is made only for an object or an error: a
// matrix has a million entries, each a scalar.
type treePath struct {
	parent string
	key    string
	index  int // -1 for none
}

func (p treePath) String() string {
	switch {
	case p.index >= 0:
		return indexPath(p.parent, p.index)
	case p.key != "":
		return childPath(p.parent, p.key)
	}
	return p.parent
}

// value reads the value at path.
func (sc *treeScanner) value(path treePath, depth int) (any, error) {
	sc.skipSpace()
	switch c := sc.src[sc.pos]; {
	case c == '{' || c == '[':
		if depth >= maxJSONDepth {
			return nil, fmt.Errorf("%s: nested more than %d deep", path, maxJSONDepth)
		}
		sc.pos++
		here := path.String()
		if c == '{' {
			return sc.object(here, depth+1)
		}
		// The entries go to a scratch list of this depth, reused from
		// one array to the next, and then to a list of their exact
		// length: appending to the array itself would leave the garbage
		// of its doublings, as much again as the array.
		for len(sc.scratch) <= depth {
			sc.scratch = append(sc.scratch, nil)
		}
		arr := sc.scratch[depth][:0]
		for sc.skipSpace(); sc.src[sc.pos] != ']'; sc.skipSpace() {
			if sc.src[sc.pos] == ',' {
				sc.pos++
			}
			i := len(arr)
			if i == maxJSONArray {
				return nil, fmt.Errorf("%s: more than %d entries, more than any model holds", here, maxJSONArray)
			}
			v, err := sc.value(treePath{parent: here, index: i}, depth+1)
			if err != nil {
				return nil, err
			}
			arr = append(arr, v)
		}
		sc.pos++
		sc.scratch[depth] = arr
		return append([]any{}, arr...), nil
	case c == '"':
		start := sc.pos
		escaped, err := sc.skipString()
		if err == nil {
			var v any
			if v, err = sc.scalar(start, true, escaped); err == nil {
				return v, nil
			}
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	case c == 't':
		sc.pos += 4
		return true, nil
	case c == 'f':
		sc.pos += 5
		return false, nil
	case c == 'n':
		sc.pos += 4
		return nil, nil
	}
	start := sc.pos
	for sc.pos < len(sc.src) && strings.IndexByte("+-.0123456789eE", sc.src[sc.pos]) >= 0 {
		sc.pos++
	}
	return sc.scalar(start, false, false)
}

// str reads a string: as it is when it has no escapes, else through
// encoding/json (decodeTree refused invalid UTF-8 already).
func (sc *treeScanner) str() (string, error) {
	start := sc.pos
	escaped, err := sc.skipString()
	if err != nil {
		return "", err
	}
	return sc.stringAt(start, escaped)
}

// skipString moves past the string at pos, refusing one longer than
// maxString bytes, and says whether it has escapes.
func (sc *treeScanner) skipString() (escaped bool, err error) {
	start := sc.pos
	for sc.pos++; sc.src[sc.pos] != '"'; sc.pos++ {
		if sc.src[sc.pos] == '\\' {
			escaped = true
			sc.pos++
		}
	}
	sc.pos++
	if n := sc.pos - start - 2; n > sc.maxString {
		return false, fmt.Errorf("a string of %d bytes, more than the %d a model's names and weights take", n, sc.maxString)
	}
	return escaped, nil
}

// stringAt is the value of the string from start to pos.
func (sc *treeScanner) stringAt(start int, escaped bool) (string, error) {
	if raw := sc.src[start+1 : sc.pos-1]; !escaped && utf8.Valid(raw) {
		return string(raw), nil
	}
	var s string
	err := json.Unmarshal(sc.src[start:sc.pos], &s)
	return s, err
}

// object reads the fields of an object whose '{' has been read.
func (sc *treeScanner) object(path string, depth int) (*jsonObject, error) {
	o := &jsonObject{path: path, vals: map[string]any{}}
	for sc.skipSpace(); sc.src[sc.pos] != '}'; sc.skipSpace() {
		if sc.src[sc.pos] == ',' {
			sc.pos++
			sc.skipSpace()
		}
		key, err := sc.str()
		if err != nil {
			return nil, fmt.Errorf("%s: a key: %w", path, err)
		}
		if _, dup := o.vals[key]; dup {
			return nil, fmt.Errorf("%s: duplicate field %q", childPath(path, key), key)
		}
		sc.skipSpace()
		sc.pos++ // ':'
		v, err := sc.value(treePath{parent: path, key: key, index: -1}, depth)
		if err != nil {
			return nil, err
		}
		o.keys = append(o.keys, key)
		o.vals[key] = v
	}
	sc.pos++
	return o, nil
}

func childPath(parent, key string) string {
	if parent == "" {
		return key
	}
	return parent + "." + key
}

func indexPath(parent string, i int) string { return parent + "[" + strconv.Itoa(i) + "]" }

// jsonType names the JSON type of a tree value, for errors.
func jsonType(v any) string {
	switch v.(type) {
	case *jsonObject:
		return "an object"
	case []any:
		return "an array"
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", v)
}
