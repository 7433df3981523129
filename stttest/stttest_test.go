package stttest

import (
	"bytes"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"
)

// post sends a multipart form of fields and, when name is not "-", a file
// part of that name.
func post(t *testing.T, url, key string, fields map[string]string, name string, data []byte) (int, string) {
	t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	for k, v := range fields {
		w.WriteField(k, v)
	}
	if name != "-" {
		part, _ := w.CreateFormFile("file", name)
		part.Write(data)
	}
	w.Close()
	req, _ := http.NewRequest(http.MethodPost, url, &buf)
	req.Header.Set("Content-Type", w.FormDataContentType())
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

func TestServerIsStrict(t *testing.T) {
	s := NewServer(Options{Key: "k"})
	defer s.Close()
	url := s.URL() + "/audio/transcriptions"
	ok := map[string]string{"model": "whisper-1", "response_format": "json"}
	with := func(k, v string) map[string]string {
		m := map[string]string{"model": "whisper-1"}
		m[k] = v
		return m
	}
	for _, tc := range []struct {
		name, key, file string
		fields          map[string]string
		data            []byte
		status          int
		says            string
	}{
		{"a good request", "k", "a.ogg", ok, []byte("OggS"), 200, `"text":"hello"`},
		{"no key", "", "a.ogg", ok, []byte("OggS"), 401, "API key"},
		{"no file part", "k", "-", ok, nil, 400, "'file'"},
		{"no file name", "k", "", ok, []byte("OggS"), 400, "file"},
		{"an extension it does not take", "k", "a.opus", ok, []byte("OggS"), 400, "Invalid file format"},
		{"an empty file", "k", "a.ogg", ok, nil, 400, "too short"},
		{"no model", "k", "a.ogg", map[string]string{}, []byte("OggS"), 400, "model"},
		{"an unknown format", "k", "a.ogg", with("response_format", "xml"), []byte("OggS"), 400, "response_format"},
		{"a language name", "k", "a.ogg", with("language", "english"), []byte("OggS"), 400, "ISO-639-1"},
		{"a hot temperature", "k", "a.ogg", with("temperature", "1.5"), []byte("OggS"), 400, "temperature"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, body := post(t, url, tc.key, tc.fields, tc.file, tc.data)
			if status != tc.status || !strings.Contains(body, tc.says) {
				t.Errorf("%d %s; want %d saying %q", status, body, tc.status, tc.says)
			}
		})
	}
	if n := len(s.Requests()); n != 10 {
		t.Errorf("%d requests recorded, want 10", n)
	}
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"model":"whisper-1"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer k")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 400 {
		t.Errorf("a JSON body: %d, want 400", resp.StatusCode)
	}
}

func TestServerAnswers(t *testing.T) {
	s := NewServer(Options{WhisperCPP: true, Language: "german"})
	defer s.Close()
	s.Answer(Answer{Text: "hallo", Duration: 1.5}, Answer{Status: 429, RetryAfter: "3", Message: "slow down"})
	status, body := post(t, s.Root()+"/inference", "", map[string]string{"response_format": "verbose_json"}, "a.wav", []byte("RIFF"))
	var v struct {
		Text, Language string
		Duration       float64
		Segments       []struct{ Text string }
	}
	if err := json.Unmarshal([]byte(body), &v); status != 200 || err != nil || v.Text != "hallo" || v.Language != "german" || v.Duration != 1.5 || len(v.Segments) != 1 {
		t.Errorf("%d %s", status, body)
	}
	status, body = post(t, s.Root()+"/inference", "", nil, "a.wav", []byte("RIFF"))
	if status != 429 || !strings.Contains(body, "slow down") {
		t.Errorf("%d %s", status, body)
	}
	if r := s.Requests()[0]; r.FileName != "a.wav" || r.ResponseFormat != "verbose_json" || string(r.File) != "RIFF" || r.Path != "/inference" {
		t.Errorf("request = %+v", r)
	}
}
