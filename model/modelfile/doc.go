// Package modelfile reads and writes a model.Model as a file: the JSON
// model file of docs/model-format.md (ReadJSON, WriteJSON), lossless at
// every precision up to the file's max_n, and safetensors (ReadSafetensors,
// WriteSafetensors), whose weights are stored in one dtype and which
// refuses to round a weight silently (WriteSafetensorsRounded rounds and
// lists what it rounded).
//
// A file is untrusted input: the readers bound its depth, sizes and
// expressions, and refuse it with an error naming the path of the first
// fault (a JSON path, or a tensor name), never a panic.
//
// # Imports
//
// modelfile imports model, numeric and internal/plural.
package modelfile
