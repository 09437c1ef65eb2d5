module github.com/transformer-cookbook/verify

go 1.24

require (
	github.com/ALTree/bigfloat v0.2.0
	github.com/google/go-cmp v0.7.0
	github.com/leanovate/gopter v0.2.11
)
