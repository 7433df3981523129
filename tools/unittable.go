package tools

// A unit converts to its category's base unit: a value v in the unit is
// (v + offset) * factor in the base unit. Only temperatures have an offset.
type unit struct {
	symbol         string
	factor, offset float64
}

// A category is a set of units that convert into each other.
type category struct {
	name     string
	units    []unit
	cased    bool // symbols are case-sensitive (data sizes: b is a bit, B a byte)
	absolute bool // the base unit starts at zero (kelvin), so no value is below it
}

// categories lists every unit, in the order messages show them. Base units:
// metre, kilogram, kelvin, litre, metre per second and bit. Volumes are US
// customary, except the imperial gallon.
var categories = []category{
	{name: "length", units: []unit{
		{"mm", 1e-3, 0}, {"cm", 1e-2, 0}, {"m", 1, 0}, {"km", 1e3, 0},
		{"in", 0.0254, 0}, {"ft", 0.3048, 0}, {"yd", 0.9144, 0}, {"mi", 1609.344, 0}, {"nmi", 1852, 0},
	}},
	{name: "mass", units: []unit{
		{"mg", 1e-6, 0}, {"g", 1e-3, 0}, {"kg", 1, 0}, {"t", 1e3, 0},
		{"oz", 0.028349523125, 0}, {"lb", 0.45359237, 0}, {"st", 6.35029318, 0},
	}},
	{name: "temperature", absolute: true, units: []unit{
		{"C", 1, 273.15}, {"F", 5.0 / 9, 459.67}, {"K", 1, 0},
	}},
	{name: "volume", units: []unit{
		{"ml", 1e-3, 0}, {"l", 1, 0}, {"m3", 1e3, 0},
		{"tsp", 0.00492892159375, 0}, {"tbsp", 0.01478676478125, 0}, {"floz", 0.0295735295625, 0},
		{"cup", 0.2365882365, 0}, {"pt", 0.473176473, 0}, {"qt", 0.946352946, 0},
		{"gal", 3.785411784, 0}, {"imp_gal", 4.54609, 0},
	}},
	{name: "speed", units: []unit{
		{"m/s", 1, 0}, {"km/h", 1 / 3.6, 0}, {"mph", 0.44704, 0}, {"kn", 1852.0 / 3600, 0}, {"ft/s", 0.3048, 0},
	}},
	{name: "data size", cased: true, units: []unit{
		{"b", 1, 0}, {"B", 8, 0},
		{"kb", 1e3, 0}, {"Mb", 1e6, 0}, {"Gb", 1e9, 0}, {"Tb", 1e12, 0},
		{"kB", 8e3, 0}, {"MB", 8e6, 0}, {"GB", 8e9, 0}, {"TB", 8e12, 0},
		{"KiB", 8 << 10, 0}, {"MiB", 8 << 20, 0}, {"GiB", 8 << 30, 0}, {"TiB", 8 << 40, 0},
	}},
}

// unitAliases maps spellings other than the symbols, normalized (lower
// case, single spaces, "_" as a space), to symbols. A trailing "s" is
// tried off as well, so regular plurals need no entry.
var unitAliases = map[string]string{
	"millimeter": "mm", "millimetre": "mm", "centimeter": "cm", "centimetre": "cm",
	"meter": "m", "metre": "m", "kilometer": "km", "kilometre": "km",
	"inch": "in", "inches": "in", "foot": "ft", "feet": "ft", "yard": "yd", "mile": "mi",
	"nautical mile": "nmi",

	"milligram": "mg", "milligramme": "mg", "gram": "g", "gramme": "g",
	"kilogram": "kg", "kilogramme": "kg", "kilo": "kg", "tonne": "t", "metric ton": "t",
	"ounce": "oz", "pound": "lb", "stone": "st",

	"°c": "C", "℃": "C", "celsius": "C", "centigrade": "C", "degc": "C", "deg c": "C",
	"degree celsius": "C", "degrees celsius": "C", "degree c": "C", "degrees c": "C",
	"°f": "F", "℉": "F", "fahrenheit": "F", "degf": "F", "deg f": "F",
	"degree fahrenheit": "F", "degrees fahrenheit": "F", "degree f": "F", "degrees f": "F",
	"kelvin": "K", "°k": "K",

	"milliliter": "ml", "millilitre": "ml", "liter": "l", "litre": "l", "ltr": "l",
	"m³": "m3", "cubic meter": "m3", "cubic metre": "m3",
	"teaspoon": "tsp", "tablespoon": "tbsp", "tbs": "tbsp", "tbl": "tbsp", "fl oz": "floz", "fluid ounce": "floz",
	"pint": "pt", "quart": "qt", "gallon": "gal", "us gal": "gal", "us gallon": "gal",
	"imperial gallon": "imp_gal", "uk gallon": "imp_gal",

	"meter per second": "m/s", "meters per second": "m/s", "metre per second": "m/s", "metres per second": "m/s",
	"kmh": "km/h", "kph": "km/h", "km/hr": "km/h", "kilometer per hour": "km/h", "kilometers per hour": "km/h",
	"kilometre per hour": "km/h", "kilometres per hour": "km/h",
	"mi/h": "mph", "mile per hour": "mph", "miles per hour": "mph",
	"kt": "kn", "knot": "kn", "fps": "ft/s", "foot per second": "ft/s", "feet per second": "ft/s",

	"bit": "b", "byte": "B", "octet": "B",
	"kbit": "kb", "kilobit": "kb", "mbit": "Mb", "megabit": "Mb", "gbit": "Gb", "gigabit": "Gb", "tbit": "Tb", "terabit": "Tb",
	"kilobyte": "kB", "megabyte": "MB", "gigabyte": "GB", "terabyte": "TB",
	"kibibyte": "KiB", "mebibyte": "MiB", "gibibyte": "GiB", "tebibyte": "TiB",
}

// dataPrefixes maps the first letter of a short data-size symbol, in either
// case, to its prefix: "kb" and "KB" share "k".
var dataPrefixes = map[byte]string{'k': "k", 'K': "k", 'm': "M", 'M': "M", 'g': "G", 'G': "G", 't': "T", 'T': "T"}
