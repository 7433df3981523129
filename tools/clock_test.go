package tools

import (
	"testing"
	"time"
	_ "time/tzdata" // the zones, whatever the machine has installed

	"github.com/ryo-bot/ryo/clocktest"
)

func TestCurrentTime(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	now := clocktest.New(time.Date(2026, 11, 22, 13, 5, 0, 0, time.UTC))
	spec := CurrentTime(berlin, now)
	tests := []struct{ args, want string }{
		{`{}`, `{"timezone":"Europe/Berlin","time":"2026-11-22T14:05:00+01:00","weekday":"Sunday","human":"Sunday, 22 November 2026, 14:05"}`},
		{`{"timezone":""}`, `{"timezone":"Europe/Berlin","time":"2026-11-22T14:05:00+01:00","weekday":"Sunday","human":"Sunday, 22 November 2026, 14:05"}`},
		{`{"timezone":"local"}`, `{"timezone":"Europe/Berlin","time":"2026-11-22T14:05:00+01:00","weekday":"Sunday","human":"Sunday, 22 November 2026, 14:05"}`},
		{`{"timezone":"America/New_York"}`, `{"timezone":"America/New_York","time":"2026-11-22T08:05:00-05:00","weekday":"Sunday","human":"Sunday, 22 November 2026, 08:05"}`},
		{`{"timezone":"Asia/Kolkata"}`, `{"timezone":"Asia/Kolkata","time":"2026-11-22T18:35:00+05:30","weekday":"Sunday","human":"Sunday, 22 November 2026, 18:35"}`},
		{`{"timezone":"Pacific/Kiritimati"}`, `{"timezone":"Pacific/Kiritimati","time":"2026-11-23T03:05:00+14:00","weekday":"Monday","human":"Monday, 23 November 2026, 03:05"}`},
		{`{"timezone":"UTC"}`, `{"timezone":"UTC","time":"2026-11-22T13:05:00Z","weekday":"Sunday","human":"Sunday, 22 November 2026, 13:05"}`},
		{`{"timezone":"utc"}`, `{"timezone":"UTC","time":"2026-11-22T13:05:00Z","weekday":"Sunday","human":"Sunday, 22 November 2026, 13:05"}`},
		{`{"timezone":"GMT"}`, `{"timezone":"UTC","time":"2026-11-22T13:05:00Z","weekday":"Sunday","human":"Sunday, 22 November 2026, 13:05"}`},
		{`{"timezone":" z "}`, `{"timezone":"UTC","time":"2026-11-22T13:05:00Z","weekday":"Sunday","human":"Sunday, 22 November 2026, 13:05"}`},
		{`{"timezone":"europe/berlin"}`, `{"timezone":"Europe/Berlin","time":"2026-11-22T14:05:00+01:00","weekday":"Sunday","human":"Sunday, 22 November 2026, 14:05"}`},
		{`{"timezone":"america/new york"}`, `{"timezone":"America/New_York","time":"2026-11-22T08:05:00-05:00","weekday":"Sunday","human":"Sunday, 22 November 2026, 08:05"}`},
	}
	for _, tt := range tests {
		got, err := runTool(t, spec, tt.args)
		if err != nil || got != tt.want {
			t.Errorf("current_time(%s) =\n %s, %v\nwant\n %s", tt.args, got, err, tt.want)
		}
	}
}

func TestCurrentTimeSummer(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	now := clocktest.New(time.Date(2026, 7, 1, 22, 30, 0, 0, time.UTC))
	got, err := runTool(t, CurrentTime(berlin, now), `{}`)
	want := `{"timezone":"Europe/Berlin","time":"2026-07-02T00:30:00+02:00","weekday":"Thursday","human":"Thursday, 2 July 2026, 00:30"}`
	if err != nil || got != want {
		t.Errorf("current_time in summer = %s, %v; want %s", got, err, want)
	}
}

func TestCurrentTimeDefaults(t *testing.T) {
	got, err := CurrentTime(nil, nil).Tool.Call(t.Context(), []byte(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	res := got.(CurrentTimeResult)
	if _, perr := time.Parse(time.RFC3339, res.Time); res.Timezone != "UTC" || perr != nil {
		t.Errorf("current_time with no zone and no clock = %+v", res)
	}
}

func TestCurrentTimeErrors(t *testing.T) {
	now := clocktest.New(time.Date(2026, 11, 22, 13, 5, 0, 0, time.UTC))
	spec := CurrentTime(time.UTC, now)
	tests := []struct{ args, code, message string }{
		{`{"timezone":"Mars/Olympus_Mons"}`, CodeInvalidTimezone,
			`unknown time zone "Mars/Olympus_Mons"; use an IANA name of the form Region/City, such as "Europe/Berlin" or "America/New_York", or "UTC"`},
		{`{"timezone":"Berlin"}`, CodeInvalidTimezone,
			`unknown time zone "Berlin"; use an IANA name of the form Region/City, such as "Europe/Berlin" or "America/New_York", or "UTC"`},
		{`{"timezone":"../../etc/passwd"}`, CodeInvalidTimezone, ""},
		{`{"timezone":"/etc/localtime"}`, CodeInvalidTimezone, ""},
		{`{"timezone":42}`, "invalid_arguments", ""},
		{`{"zone":"UTC"}`, "invalid_arguments", ""},
	}
	for _, tt := range tests {
		_, err := runTool(t, spec, tt.args)
		wantError(t, "current_time("+tt.args+")", err, tt.code, tt.message)
	}
}
