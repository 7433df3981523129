package toolbus

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// Tiers say which tools each tier of people may use. A tier unlocks tools
// by name, whole categories by name, or every tool ("*"). People with no
// tier, or with one no longer configured, are in the default tier; unless
// configured, the default tier unlocks every tool.
//
// A tier is kept as written — its tools and categories — and resolved
// against the tools there are when asked (see Follow), so a category whose
// tools change at run time, such as an API's, unlocks its tools as they
// are now.
type Tiers struct {
	def   string
	names []string            // as configured, the default first
	items map[string][]string // tier → its items: tools, categories, "*"
	specs func() []Spec       // the tools there are now
}

// DefaultTier is the default tier's name unless configured otherwise.
const DefaultTier = "default"

var tierName = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,31}$`)

// ParseTiers reads tiers from spec — "name=item,item;name=item", each item
// a tool, a category or "*" — for the tools of specs. def names the default
// tier; when spec does not define it, it unlocks every tool — unless spec
// defines tiers and def is not DefaultTier, which is taken for a misspelt
// name rather than hand everyone every tool. An empty spec is one default
// tier with every tool. It refuses unknown tools and categories, bad and
// repeated names, and a tier that unlocks nothing, saying which. The
// categories are known besides those of specs, though none of their tools
// is there yet: an API's, whose document could not be loaded at start and
// may be later.
func ParseTiers(spec, def string, specs []Spec, categories ...Category) (*Tiers, error) {
	written := def                                // for messages, as the person wrote it
	def = strings.ToLower(strings.TrimSpace(def)) // as the names in spec
	if def == "" {
		def = DefaultTier
	}
	if !tierName.MatchString(def) {
		return nil, fmt.Errorf("default tier %q: a tier's name is 1 to 32 lowercase letters, digits, - or _", written)
	}
	t := &Tiers{def: def, items: map[string][]string{}, specs: func() []Spec { return specs }}
	for part := range strings.SplitSeq(spec, ";") {
		if strings.TrimSpace(part) == "" {
			continue
		}
		name, items, ok := strings.Cut(part, "=")
		name = strings.ToLower(strings.TrimSpace(name))
		switch {
		case !ok:
			return nil, fmt.Errorf("%q: write a tier as name=tool,category,…", strings.TrimSpace(part))
		case !tierName.MatchString(name):
			return nil, fmt.Errorf("tier %q: a tier's name is 1 to 32 lowercase letters, digits, - or _", name)
		case t.items[name] != nil:
			return nil, fmt.Errorf("tier %q is defined twice", name)
		}
		var written []string
		for item := range strings.SplitSeq(items, ",") {
			if item = strings.TrimSpace(item); item == "" {
				continue
			}
			if len(unlocked([]string{item}, specs)) == 0 && !slices.ContainsFunc(categories, func(c Category) bool {
				return strings.EqualFold(string(c), item)
			}) {
				return nil, fmt.Errorf("tier %q: %q is neither a tool nor a category of tools (tools: %s)", name, item, specNames(specs))
			}
			written = append(written, item)
		}
		if len(written) == 0 {
			return nil, fmt.Errorf("tier %q unlocks no tool", name)
		}
		t.items[name] = written
		t.names = append(t.names, name)
	}
	if t.items[def] == nil && def != DefaultTier && len(t.names) > 0 {
		return nil, fmt.Errorf("default tier %q is not among the tiers defined (%s); define it, e.g. %s=*, or name one of them",
			written, strings.Join(t.names, ", "), def)
	}
	if t.items[def] == nil {
		t.items[def], t.names = []string{"*"}, append(t.names, def)
	}
	i := slices.Index(t.names, def)
	t.names = append(append([]string{def}, t.names[:i]...), t.names[i+1:]...)
	return t, nil
}

// unlocked are the tools of specs that items name, by name or category
// or "*", in the order of specs; never nil.
func unlocked(items []string, specs []Spec) []string {
	out := []string{}
	for _, s := range specs {
		if slices.ContainsFunc(items, func(item string) bool {
			return item == "*" || s.Name == item || strings.EqualFold(string(s.Category), item)
		}) {
			out = append(out, s.Name)
		}
	}
	return out
}

// Follow makes the tiers resolve against r's tools as they are when asked,
// rather than the specs they were parsed with; it returns t. Call it
// before the tiers are used.
func (t *Tiers) Follow(r *Registry) *Tiers {
	t.specs = r.Specs
	return t
}

func specNames(specs []Spec) string {
	var names []string
	for _, s := range specs {
		names = append(names, s.Name)
	}
	return strings.Join(names, ", ")
}

// Default is the default tier's name.
func (t *Tiers) Default() string { return t.def }

// Names are the tiers, the default first.
func (t *Tiers) Names() []string { return slices.Clone(t.names) }

// Has reports whether tier is configured.
func (t *Tiers) Has(tier string) bool { return t.items[tier] != nil }

// Of is the tier a person with tier is in: the default when it is "" or
// no longer configured.
func (t *Tiers) Of(tier string) string {
	if t.Has(tier) {
		return tier
	}
	return t.def
}

// Tools are the tools of tier (see Of) there are now, in the registry's
// order; never nil. A tool or category that is gone unlocks nothing.
func (t *Tiers) Tools(tier string) []string { return unlocked(t.items[t.Of(tier)], t.specs()) }
