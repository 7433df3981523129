package openapi

import (
	"strings"
	"testing"
)

// TestDescriptions: summaries and descriptions as real documents write
// them, and the description each becomes, or why none can be made.
func TestDescriptions(t *testing.T) {
	for _, tc := range []struct {
		method, summary, description string
		want                         string // "" when refused
	}{
		{"GET", "Finds Pets by status.", "", "Finds Pets by status"},
		{"PUT", "Update an existing pet.", "Update an existing pet by Id.", "Update an existing pet"},
		{"GET", "Logs user into the system", "", "Logs user into the system"},
		{"GET", "7 day weather forecast for coordinates", "", "Get 7 day weather forecast for coordinates"},
		{"GET", "", "<p>Returns <b>air quality</b> forecasts (PM10, PM2.5, ozone).</p><p>Data from CAMS.</p>", "Returns air quality forecasts (PM10, PM2.5, ozone)"},
		{"GET", "**Lists** the [things](https://x.example/t) you own. Paging is by cursor.", "", "Lists the things you own"},
		{"GET", "Searches, e.g. by name, the catalog. More text.", "", "Searches, e.g. by name, the catalog"},
		{"GET", "Pet status", "", "Get pet status"},
		{"GET", "API status", "", "Get API status"},
		{"DELETE", "Order by ID", "", "Delete order by ID"},
		{"GET", "Returns things\n\nMore about them without a full stop", "", "Returns things"},
		{"PATCH", "User attributes", "", "Update user attributes"},
		{"POST", "Plants a tree of nodes.", "", "Plants a tree of nodes"},
		{"POST", "Note creation", "", ""},
		{"GET", "This endpoint returns the elevation.", "", ""},
		{"GET", "", "", ""},
		{"GET", "Pet status", "Returns the status of a pet.", "Returns the status of a pet"},
		{"GET", "# Heading\n\nReturns `things`.", "", "Returns things"},
		{"GET", "Returns " + strings.Repeat("very ", 60) + "long text.", "", "Returns " + strings.TrimSpace(strings.Repeat("very ", 38)) + "…"},
	} {
		got, err := describe(tc.method, tc.summary, tc.description)
		switch {
		case tc.want == "" && err == nil:
			t.Errorf("%q: got %q, want it refused", tc.summary, got)
		case tc.want != "" && got != tc.want:
			t.Errorf("%q: got %q (%v), want %q", tc.summary, got, err, tc.want)
		}
		if len([]rune(got)) > 200 {
			t.Errorf("%q: %d characters", got, len([]rune(got)))
		}
	}
}

// TestNames: operationIds and paths as real documents write them.
func TestNames(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"findPetsByStatus", "find_pets_by_status"},
		{"getHTTPServerURL", "get_http_server_url"},
		{"get_user-by.name", "get_user_by_name"},
		{"Pets_List", "pets_list"},
		{"listV2Items", "list_v2_items"},
		{"créerNote", "cr_er_note"},
		{"__", ""},
	} {
		if got := snake(tc.in); got != tc.want {
			t.Errorf("snake(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	for _, tc := range []struct{ method, path, want string }{
		{"GET", "/v1/forecast", "get_forecast"},
		{"GET", "/pets/{petId}", "get_pets_by_pet_id"},
		{"DELETE", "/api/v2.1/users/{user}/keys/{keyId}", "delete_users_by_user_keys_and_key_id"},
		{"GET", "/v1/air-quality", "get_air_quality"},
		{"GET", "/", "get"},
	} {
		if got := pathName(tc.method, tc.path); got != tc.want {
			t.Errorf("pathName(%s %s) = %q, want %q", tc.method, tc.path, got, tc.want)
		}
	}
	long := toolName("weather", strings.Repeat("forecast_", 10))
	if len(long) > 64 || long != toolName("weather", strings.Repeat("forecast_", 10)) {
		t.Errorf("long name %q", long)
	}
}

// TestCollisions: names are settled by the operations that want them,
// not by what else the document holds.
func TestCollisions(t *testing.T) {
	cs := []candidate{
		{name: "x_get_item", method: "GET", path: "/item", ordinal: 0},                // from the path
		{name: "x_get_item", method: "PUT", path: "/items", ordinal: 1, fromID: true}, // from an operationId
		{name: "x_get_item", method: "GET", path: "/items/{id}", ordinal: 2, fromID: true},
	}
	got := assignNames(cs)
	if got[1] != "x_get_item" || got[0] == got[2] || got[0] == "x_get_item" || got[2] == "x_get_item" {
		t.Fatalf("names %v", got)
	}
	again := assignNames(append([]candidate{{name: "x_other", method: "GET", path: "/a", ordinal: 0}}, cs...))
	if again[1] != got[0] || again[2] != got[1] || again[3] != got[2] {
		t.Fatalf("an unrelated operation renamed others: %v then %v", got, again)
	}
}
