package toolbus

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
)

// Change is what Replace did to a category's tools, by name.
type Change struct {
	Added   []string
	Removed []string
	Changed []string // the same name, described or behaving differently
	Clashed []string // left out: another category's tool has the name
}

// Empty reports whether nothing changed.
func (c Change) Empty() bool {
	return len(c.Added)+len(c.Removed)+len(c.Changed)+len(c.Clashed) == 0
}

// Replace puts specs in place of every tool of category c, at once: a
// call sees either the old tools or the new ones, never a mix. The new
// tools take the place of the old ones in the registry's order (the end,
// when c had none), so an unchanged set lists in the same order. A spec
// named like another category's tool is left out, and said so; a spec of
// another category, or one Register would refuse, refuses the whole
// replacement and leaves the old tools in place. The observer, policy and
// finished calls are kept.
func (r *Registry) Replace(c Category, specs []Spec) (Change, error) {
	fresh := make(map[string]*entry, len(specs))
	var names []string
	for _, s := range specs {
		if s.Category != c {
			return Change{}, fmt.Errorf("replace %s: tool %q is of category %q", c, s.Name, s.Category)
		}
		e, err := compile(s)
		if err != nil {
			return Change{}, fmt.Errorf("replace %s: %w", c, err)
		}
		if fresh[s.Name] == nil {
			names = append(names, s.Name)
		}
		fresh[s.Name] = e
	}
	r.set.Lock()
	defer r.set.Unlock()
	var ch Change
	before := map[string]bool{}
	at, order := -1, make([]string, 0, len(r.order)+len(names))
	for _, name := range r.order {
		old := r.tools[name]
		if old.spec.Category != c {
			order = append(order, name)
			continue
		}
		if at < 0 {
			at = len(order)
		}
		before[name] = true
		switch e, ok := fresh[name]; {
		case !ok:
			ch.Removed = append(ch.Removed, name)
		case !sameSpec(old.spec, e.spec):
			ch.Changed = append(ch.Changed, name)
		}
		delete(r.tools, name)
	}
	var kept []string
	for _, name := range names {
		if _, taken := r.tools[name]; taken {
			ch.Clashed = append(ch.Clashed, name)
			continue
		}
		if !before[name] {
			ch.Added = append(ch.Added, name)
		}
		kept = append(kept, name)
		r.tools[name] = fresh[name]
	}
	if at < 0 {
		at = len(order)
	}
	r.order = slices.Insert(order, at, kept...)
	return ch, nil
}

// sameSpec reports whether a and b would look and behave the same to the
// model and the person: their Go functions cannot be compared, and a
// replaced tool's always differ, so the document's words decide.
func sameSpec(a, b Spec) bool {
	return a.Description == b.Description && a.Effect == b.Effect && a.Timeout == b.Timeout &&
		a.MaxResult == b.MaxResult && a.Doing == b.Doing && a.DoingAbout == b.DoingAbout && slices.Equal(a.Tags, b.Tags) &&
		sameJSON(a.Schema, b.Schema) && slices.EqualFunc(a.Examples, b.Examples, func(x, y Example) bool {
		return x.Question == y.Question && sameJSON(x.Arguments, y.Arguments)
	})
}

func sameJSON(a, b json.RawMessage) bool { return bytes.Equal(canonical(a), canonical(b)) }
