package tools

import (
	"context"
	"encoding/json"
	"strings"
	"time"
	"unicode"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/toolbus"
)

// CodeInvalidTimezone is current_time's error for a zone it does not know.
const CodeInvalidTimezone = "invalid_timezone"

const currentTimeSchema = `{
  "type": "object",
  "properties": {
    "timezone": {
      "type": "string",
      "maxLength": 64,
      "description": "IANA time zone name such as \"Europe/Berlin\" or \"America/New_York\", or \"UTC\". Leave it out for the owner's own time zone."
    }
  },
  "required": [],
  "additionalProperties": false
}`

// humanLayout is how current_time writes the time for a person.
const humanLayout = "Monday, 2 January 2006, 15:04"

// CurrentTimeResult is what current_time returns.
type CurrentTimeResult struct {
	Timezone string `json:"timezone"` // the zone's IANA name
	Time     string `json:"time"`     // RFC 3339, to the second
	Weekday  string `json:"weekday"`
	Human    string `json:"human"` // "Sunday, 22 November 2026, 14:05"
}

// zoneAliases are names for UTC that are not IANA names of their own.
var zoneAliases = map[string]bool{"utc": true, "gmt": true, "z": true, "zulu": true}

// clock reads the time; zone is the owner's.
type clock struct {
	zone  *time.Location
	clock ryo.Clock
}

// CurrentTime returns the current_time tool. defaultZone is the owner's
// time zone (nil means UTC) and c the clock (nil means the system's).
func CurrentTime(defaultZone *time.Location, c ryo.Clock) toolbus.Spec {
	cl := clock{zone: defaultZone, clock: c}
	if cl.zone == nil {
		cl.zone = time.UTC
	}
	if cl.clock == nil {
		cl.clock = ryo.SystemClock{}
	}
	return readOnly("current_time",
		"Get the current date, time and weekday in the owner's time zone, or in an IANA zone such as \"Asia/Tokyo\". "+
			"Returns the zone, an RFC 3339 time, the weekday and a readable form.",
		toolbus.TimeUnits, currentTimeSchema, cl.call,
		example("What day is it today?", `{}`),
		example("What time is it in Tokyo now?", `{"timezone":"Asia/Tokyo"}`))
}

func (c clock) call(ctx context.Context, raw json.RawMessage) (any, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var args struct {
		Timezone string `json:"timezone"`
	}
	if err := decodeArgs(raw, &args); err != nil {
		return nil, err
	}
	loc, err := c.location(args.Timezone)
	if err != nil {
		return nil, err
	}
	t := c.clock.Now().In(loc)
	return CurrentTimeResult{
		Timezone: loc.String(),
		Time:     t.Format(time.RFC3339),
		Weekday:  t.Weekday().String(),
		Human:    t.Format(humanLayout),
	}, nil
}

// location resolves a zone name: empty or "local" is the owner's zone, the
// UTC aliases are UTC, and IANA names are tried as given and then with
// their words capitalized ("europe/berlin", "America/New York").
func (c clock) location(name string) (*time.Location, error) {
	name = strings.TrimSpace(name)
	switch lower := strings.ToLower(name); {
	case lower == "" || lower == "local":
		return c.zone, nil
	case zoneAliases[lower]:
		return time.UTC, nil
	}
	for _, candidate := range []string{name, capitalizeZone(name)} {
		if loc, err := time.LoadLocation(candidate); err == nil {
			return loc, nil
		}
	}
	return nil, toolbus.Errorf(CodeInvalidTimezone,
		`unknown time zone %q; use an IANA name of the form Region/City, such as "Europe/Berlin" or "America/New_York", or "UTC"`, name)
}

// capitalizeZone writes a zone name the way the IANA database does in most
// cases: each word capitalized, spaces as underscores.
func capitalizeZone(name string) string {
	var b strings.Builder
	start := true
	for _, r := range strings.ReplaceAll(name, " ", "_") {
		if start {
			b.WriteRune(unicode.ToUpper(r))
		} else {
			b.WriteRune(unicode.ToLower(r))
		}
		start = strings.ContainsRune("/_-", r)
	}
	return b.String()
}
