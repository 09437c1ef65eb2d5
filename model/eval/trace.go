package eval

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/transformer-cookbook/verify/numeric"
)

// Trace is the residual stream after every sublayer: the embedding, then
// each attention and feed-forward sublayer (with its residual and norm),
// then the final norm.
type Trace struct {
	Components []string
	States     []State
}

// State is the residual stream at one point: a vector per position.
type State struct {
	Label   string
	Vectors [][]Value // [position][component]
}

// addState appends the state h to t.
func addState[T any](t *Trace, b numeric.Backend[T], label string, h [][]T) {
	vectors := make([][]Value, len(h))
	for i := range h {
		vectors[i] = make([]Value, len(h[i]))
		for c := range h[i] {
			vectors[i][c] = ValueOf(b, h[i][c])
		}
	}
	t.States = append(t.States, State{Label: label, Vectors: vectors})
}

// Write prints the trace as tables like the paper's state diagrams: one
// table per state, a row per component, a column per position.
func (t *Trace) Write(w io.Writer, input []string) error {
	for _, s := range t.States {
		fmt.Fprintf(w, "%s\n", s.Label)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintf(tw, "\t%s\t\n", strings.Join(input, "\t"))
		for c, name := range t.Components {
			row := make([]string, len(s.Vectors))
			for i := range s.Vectors {
				row[i] = s.Vectors[i][c].Text
			}
			fmt.Fprintf(tw, "%s\t%s\t\n", name, strings.Join(row, "\t"))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		fmt.Fprintln(w)
	}
	return nil
}
