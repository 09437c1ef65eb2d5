package recipes_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"testing"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/model/modelfile"
	"github.com/transformer-cookbook/verify/recipes"
)

// BenchmarkExport writes and reads the lookup's model file (AHAT) for
// lengths up to N, in both formats: its position embedding (1, j, j²) is
// stored once per position, so every step is linear in N, which the
// ns/op at N = 1024, 4096, 16384 and 65536 show (each 4 times the last).
// It reports the bytes of the file too.
func BenchmarkExport(b *testing.B) {
	r, err := recipes.Get("lookup")
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{1024, 4096, 16384, 65536} {
		con, err := r.Construct(model.AverageHardmax, n, nil)
		if err != nil {
			b.Fatal(err)
		}
		m := con.Model
		formats := []struct {
			name  string
			write func(w io.Writer) error
			read  func(r io.Reader) error
		}{
			{"json", func(w io.Writer) error { return modelfile.WriteJSON(context.Background(), w, m, n) },
				func(r io.Reader) error { _, _, err := modelfile.ReadJSON(r); return err }},
			{"safetensors", func(w io.Writer) error { return modelfile.WriteSafetensors(context.Background(), w, m, n, "F64") },
				func(r io.Reader) error { _, _, err := modelfile.ReadSafetensors(r); return err }},
		}
		for _, f := range formats {
			var file bytes.Buffer
			if err := f.write(&file); err != nil {
				b.Fatal(err)
			}
			b.Run(fmt.Sprintf("%s/write/N=%d", f.name, n), func(b *testing.B) {
				b.ReportMetric(float64(file.Len()), "file-bytes")
				for b.Loop() {
					if err := f.write(io.Discard); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run(fmt.Sprintf("%s/read/N=%d", f.name, n), func(b *testing.B) {
				for b.Loop() {
					if err := f.read(bytes.NewReader(file.Bytes())); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
