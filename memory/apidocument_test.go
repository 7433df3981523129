package memory_test

import (
	"bytes"
	"testing"
	"time"

	"github.com/ryo-bot/ryo/memory"
	"github.com/ryo-bot/ryo/memory/memorytest"
)

// The last good document of an API is kept, byte for byte with its
// validators, and a newer one takes its place; other APIs have none.
func TestAPIDocumentKeepsTheLastGood(t *testing.T) {
	db := memorytest.Open(t)
	c := ctx(t)
	if _, ok, err := db.APIDocumentOf(c, "weather"); ok || err != nil {
		t.Fatalf("a document before any was kept: %v, %v", ok, err)
	}
	at := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	first := memory.APIDocument{API: "weather", Document: []byte("openapi: 3.1.0\ninfo: {title: Weather, version: '1.0'}\n"),
		URL: "https://api.weather.example/openapi.yaml", ETag: `W/"5e1f-1"`, LastModified: "Wed, 25 Nov 2026 08:00:00 GMT", Fetched: at}
	if err := db.SaveAPIDocument(c, first); err != nil {
		t.Fatal(err)
	}
	second := first
	second.Document, second.ETag, second.Fetched = append(bytes.Clone(first.Document), "paths: {}\n"...), `"5e1f-2"`, at.Add(time.Hour)
	if err := db.SaveAPIDocument(c, second); err != nil {
		t.Fatal(err)
	}
	got, ok, err := db.APIDocumentOf(c, "weather")
	if err != nil || !ok {
		t.Fatalf("%v, %v", ok, err)
	}
	if !bytes.Equal(got.Document, second.Document) || got.ETag != second.ETag || got.LastModified != second.LastModified ||
		got.URL != second.URL || !got.Fetched.Equal(second.Fetched) {
		t.Errorf("kept %+v; want %+v", got, second)
	}
	if _, ok, _ := db.APIDocumentOf(c, "pets"); ok {
		t.Error("another API has a document")
	}
}
