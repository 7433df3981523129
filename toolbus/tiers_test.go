package toolbus_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/ryo-bot/ryo/toolbus"
)

func tierSpecs() []toolbus.Spec {
	mk := func(name string, c toolbus.Category) toolbus.Spec {
		s := spec(name, toolbus.ReadOnly, echo)
		s.Category = c
		return s
	}
	return []toolbus.Spec{mk("calculate", toolbus.MathFinance), mk("finance", toolbus.MathFinance),
		mk("current_time", toolbus.TimeUnits), mk("unit_convert", toolbus.TimeUnits), mk("remember", toolbus.Memory)}
}

func TestParseTiers(t *testing.T) {
	specs := tierSpecs()
	tiers, err := toolbus.ParseTiers(" guest = calculate, time & units ; member=* ;", "", specs)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		tier string
		want string
	}{
		{"guest", "calculate,current_time,unit_convert"},
		{"member", "calculate,finance,current_time,unit_convert,remember"},
		{"", "calculate,finance,current_time,unit_convert,remember"},        // the default tier, not configured: every tool
		{"removed", "calculate,finance,current_time,unit_convert,remember"}, // a tier no longer configured: the default
	} {
		if got := strings.Join(tiers.Tools(tt.tier), ","); got != tt.want {
			t.Errorf("Tools(%q) = %s; want %s", tt.tier, got, tt.want)
		}
	}
	if got := tiers.Names(); !slices.Equal(got, []string{"default", "guest", "member"}) {
		t.Errorf("Names = %v", got)
	}
	// A configured default tier is what people without one get.
	tiers, err = toolbus.ParseTiers("Guest=calculate;member=*", " Guest ", specs) // names in any case, as written in .env
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(tiers.Tools(""), ","); got != "calculate" || tiers.Of("") != "guest" || tiers.Of("member") != "member" {
		t.Errorf("Tools(\"\") = %s, Of(\"\") = %s", got, tiers.Of(""))
	}
	if got := tiers.Names(); !slices.Equal(got, []string{"guest", "member"}) {
		t.Errorf("Names = %v", got)
	}
	// No configuration: one default tier with every tool.
	tiers, err = toolbus.ParseTiers("", "", specs)
	if err != nil || len(tiers.Tools("")) != len(specs) || len(tiers.Names()) != 1 {
		t.Fatalf("ParseTiers(\"\") = %v, %v", tiers.Names(), err)
	}
	// Tools(…) is a copy.
	tiers.Tools("")[0] = "wipe"
	if tiers.Tools("")[0] != "calculate" {
		t.Fatal("Tools hands out its own slice")
	}
}

func TestParseTiersRefuses(t *testing.T) {
	for _, tt := range []struct{ spec, def, want string }{
		{"guest=calculat", "", `"calculat" is neither a tool nor a category`},
		{"guest=calculate;guest=finance", "", "defined twice"},
		{"Guest Tier=calculate", "", "lowercase letters"},
		{"guest", "", "name=tool"},
		{"guest=, ,", "", "unlocks no tool"},
		{"guest=calculate", "Not OK", "default tier"},
		{"x=" + strings.Repeat("a", 40), "", "neither a tool"},
		// A misspelt default tier would hand everyone every tool.
		{"guest=calculate;member=*", "gest", `default tier "gest" is not among the tiers`},
	} {
		_, err := toolbus.ParseTiers(tt.spec, tt.def, tierSpecs())
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParseTiers(%q, %q) = %v; want an error with %q", tt.spec, tt.def, err, tt.want)
		}
	}
}
