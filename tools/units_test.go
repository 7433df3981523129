package tools

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ryo-bot/ryo/toolbus"
)

func TestUnitConvert(t *testing.T) {
	tests := []struct {
		value    float64
		from, to string
		want     string // the result's text
	}{
		// length
		{5, "km", "mi", "5 km = 3.10686 mi"},
		{1, "mi", "km", "1 mi = 1.60934 km"},
		{12, "in", "ft", "12 in = 1 ft"},
		{3, "ft", "yd", "3 ft = 1 yd"},
		{1, "nmi", "m", "1 nmi = 1852 m"},
		{25.4, "mm", "in", "25.4 mm = 1 in"},
		{-5, "m", "cm", "-5 m = -500 cm"},
		{2, "kilometres", "Miles", "2 km = 1.24274 mi"},
		{10, "meters", "feet", "10 m = 32.8084 ft"},
		{1, "KM", "M", "1 km = 1000 m"},
		// mass
		{1, "kg", "lb", "1 kg = 2.20462 lb"},
		{14, "lb", "st", "14 lb = 1 st"},
		{16, "oz", "lb", "16 oz = 1 lb"},
		{1, "t", "kg", "1 t = 1000 kg"},
		{500, "mg", "g", "500 mg = 0.5 g"},
		{10, "pounds", "kilograms", "10 lb = 4.53592 kg"},
		{150, "lbs", "kg", "150 lb = 68.0389 kg"},
		// temperature, both ways
		{100, "C", "F", "100 C = 212 F"},
		{212, "F", "C", "212 F = 100 C"},
		{0, "C", "K", "0 C = 273.15 K"},
		{0, "K", "C", "0 K = -273.15 C"},
		{-40, "F", "C", "-40 F = -40 C"},
		{-40, "c", "f", "-40 C = -40 F"},
		{98.6, "°F", "°C", "98.6 F = 37 C"},
		{32, "fahrenheit", "celsius", "32 F = 0 C"},
		{300, "kelvin", "F", "300 K = 80.33 F"},
		{-273.15, "C", "K", "-273.15 C = 0 K"},
		{-459.67, "F", "kelvin", "-459.67 F = 0 K"},
		// volume
		{1, "gal", "l", "1 gal = 3.78541 l"},
		{1, "imp_gal", "l", "1 imp_gal = 4.54609 l"},
		{1, "imperial gallon", "gallons", "1 imp_gal = 1.20095 gal"},
		{3, "tsp", "tbsp", "3 tsp = 1 tbsp"},
		{3, "tsp", "tbs", "3 tsp = 1 tbsp"},
		{100, "degrees C", "F", "100 C = 212 F"},
		{2, "cups", "pt", "2 cup = 1 pt"},
		{4, "qt", "gal", "4 qt = 1 gal"},
		{1, "floz", "ml", "1 floz = 29.5735 ml"},
		{1, "m3", "litres", "1 m3 = 1000 l"},
		{250, "ml", "L", "250 ml = 0.25 l"},
		// speed
		{100, "km/h", "mph", "100 km/h = 62.1371 mph"},
		{10, "m/s", "km/h", "10 m/s = 36 km/h"},
		{1, "kn", "km/h", "1 kn = 1.852 km/h"},
		{1, "ft/s", "m/s", "1 ft/s = 0.3048 m/s"},
		{60, "mph", "kph", "60 mph = 96.5606 km/h"},
		// data size: b is a bit, B a byte
		{8, "b", "B", "8 b = 1 B"},
		{1, "B", "b", "1 B = 8 b"},
		{1, "kB", "B", "1 kB = 1000 B"},
		{1, "KiB", "B", "1 KiB = 1024 B"},
		{1, "GiB", "MiB", "1 GiB = 1024 MiB"},
		{1, "GB", "GiB", "1 GB = 0.931323 GiB"},
		{1, "TB", "TiB", "1 TB = 0.909495 TiB"},
		{100, "Mb", "MB", "100 Mb = 12.5 MB"},
		{100, "mb", "mB", "100 Mb = 12.5 MB"},
		{1, "KB", "kb", "1 kB = 8 kb"},
		{1, "kib", "bytes", "1 KiB = 1024 B"},
		{2, "megabytes", "bits", "2 MB = 16000000 b"},
		{3, "MBs", "kB", "3 MB = 3000 kB"},
		{1, "b", "TiB", "1 b = 1.13687e-13 TiB"},
		// same unit
		{3.5, "m", "m", "3.5 m = 3.5 m"},
	}
	for _, tt := range tests {
		args := fmt.Sprintf(`{"value":%v,"from":%q,"to":%q}`, tt.value, tt.from, tt.to)
		got, err := UnitConvert().Tool.Call(t.Context(), []byte(args))
		if err != nil {
			t.Errorf("unit_convert(%s) error: %v", args, err)
			continue
		}
		if text := got.(UnitConvertResult).Text; text != tt.want {
			t.Errorf("unit_convert(%s) = %q; want %q", args, text, tt.want)
		}
	}
}

func TestUnitConvertResult(t *testing.T) {
	got, err := runTool(t, UnitConvert(), `{"value":5,"from":"km","to":"mi"}`)
	want := `{"value":5,"from":"km","to":"mi","result":3.10686,"text":"5 km = 3.10686 mi"}`
	if err != nil || got != want {
		t.Errorf("unit_convert = %s, %v; want %s", got, err, want)
	}
}

func TestUnitConvertErrors(t *testing.T) {
	length := "mm, cm, m, km, in, ft, yd, mi, nmi"
	tests := []struct {
		args, code, message string
	}{
		{`{"value":1,"from":"kg","to":"km"}`, CodeInvalidUnit, "cannot convert kg to km: mass vs length"},
		{`{"value":1,"from":"celsius","to":"m"}`, CodeInvalidUnit, "cannot convert C to m: temperature vs length"},
		{`{"value":1,"from":"MB","to":"l"}`, CodeInvalidUnit, "cannot convert MB to l: data size vs volume"},
		{`{"value":1,"from":"parsec","to":"km"}`, CodeInvalidUnit, `unknown unit "parsec"; length units are: ` + length},
		{`{"value":1,"from":"km","to":"lightyear"}`, CodeInvalidUnit, `unknown unit "lightyear"; length units are: ` + length},
		{`{"value":1,"from":"Mbps","to":"MB"}`, CodeInvalidUnit, `unknown unit "Mbps"; data size units are: b, B, kb, Mb, Gb, Tb, kB, MB, GB, TB, KiB, MiB, GiB, TiB`},
		{`{"value":1,"from":"ms","to":"s"}`, CodeInvalidUnit, ""},
		{`{"value":-300,"from":"C","to":"K"}`, CodeInvalidUnit, "-300 C is below absolute zero (-273.15 C)"},
		{`{"value":-500,"from":"F","to":"C"}`, CodeInvalidUnit, "-500 F is below absolute zero (-459.67 F)"},
		{`{"value":-1,"from":"K","to":"C"}`, CodeInvalidUnit, "-1 K is below absolute zero (0 K)"},
		{`{"value":1e308,"from":"km","to":"mm"}`, toolbus.CodeInvalidArgs, "the result is too large; convert a smaller value"},
		{`{"from":"km","to":"mi"}`, toolbus.CodeInvalidArgs, `value is required: the number to convert, as in {"value": 5, "from": "km", "to": "mi"}`},
		{`{"value":"5","from":"km","to":"mi"}`, toolbus.CodeInvalidArgs, ""},
		{`{"value":5,"from":"km","to":"mi","precision":2}`, toolbus.CodeInvalidArgs, ""},
	}
	for _, tt := range tests {
		_, err := runTool(t, UnitConvert(), tt.args)
		wantError(t, "unit_convert("+tt.args+")", err, tt.code, tt.message)
	}
}

func TestUnknownUnitListsAllCategories(t *testing.T) {
	_, err := runTool(t, UnitConvert(), `{"value":1,"from":"foo","to":"bar"}`)
	wantError(t, "unit_convert(foo, bar)", err, CodeInvalidUnit, "")
	for _, c := range categories {
		if !strings.Contains(err.Error(), c.name+" ("+c.symbols()+")") {
			t.Errorf("error %q does not list %s", err, c.name)
		}
	}
	if !strings.HasPrefix(err.Error(), `invalid_unit: unknown unit "foo"; known units: length (mm,`) {
		t.Errorf("error = %q", err)
	}
}

// Every symbol and alias must find its own unit, and none may hide another.
func TestUnitTables(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range categories {
		for _, u := range c.units {
			if seen[u.symbol] {
				t.Errorf("symbol %s twice", u.symbol)
			}
			seen[u.symbol] = true
			if got, _, ok := lookupUnit(u.symbol); !ok || got.symbol != u.symbol {
				t.Errorf("lookupUnit(%q) = %q, %v", u.symbol, got.symbol, ok)
			}
		}
	}
	for alias, symbol := range unitAliases {
		if alias != normalizeUnit(alias) {
			t.Errorf("alias %q is not normalized", alias)
		}
		if got, _, ok := lookupUnit(alias); !ok || got.symbol != symbol {
			t.Errorf("lookupUnit(%q) = %q, %v; want %q", alias, got.symbol, ok, symbol)
		}
	}
}
