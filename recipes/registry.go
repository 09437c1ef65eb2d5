package recipes

import (
	"fmt"
	"sort"

	"github.com/transformer-cookbook/verify/internal/suggest"
)

// variant returns a copy of base changed by edit: a recipe that is another
// with a few fields of its own (the formulas as printed beside the
// corrected ones) is written as that difference, so that what the two
// share, the section, the domain, the weightings, is stated once.
func variant(base *Recipe, edit func(r *Recipe)) *Recipe {
	r := *base
	edit(&r)
	return &r
}

var registry = map[string]*Recipe{}

// Register adds r to the registry; names must be unique.
func Register(r *Recipe) {
	if _, dup := registry[r.Name]; dup {
		panic("recipes: duplicate recipe " + r.Name)
	}
	registry[r.Name] = r
}

// Get returns the recipe called name, or an error listing the known names.
func Get(name string) (*Recipe, error) {
	if r, ok := registry[name]; ok {
		return r, nil
	}
	return nil, fmt.Errorf("unknown recipe %s%s (every recipe: 'verify list')", suggest.Quote(name), suggest.DidYouMean(name, Names()))
}

// Names lists the registered recipes in alphabetical order.
func Names() []string {
	var names []string
	for n := range registry {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// All returns the registered recipes in alphabetical order.
func All() []*Recipe {
	var rs []*Recipe
	for _, n := range Names() {
		rs = append(rs, registry[n])
	}
	return rs
}
