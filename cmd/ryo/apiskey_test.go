package main

import (
	"strings"
	"testing"
)

// TestAPIsFileNeverQuotesAKeyWrittenInline: a key written in the file by
// mistake — in place of the variable's name, or of the whole auth — is
// refused without the error (which goes to the log and the terminal)
// quoting it. The key is the one OpenWeather publishes in its examples.
func TestAPIsFileNeverQuotesAKeyWrittenInline(t *testing.T) {
	const key = "b6907d289e10d714a6e88b30761fae22"
	for _, text := range []string{
		"apis:\n  - name: weather\n    document: w.yaml\n    auth: {header: X-Api-Key, env: AKIAIOSFODNN7EXAMPLE}\n",
		"apis:\n  - name: weather\n    document: w.yaml\n    auth: {query: appid, env: " + key + "}\n",
		"apis:\n  - name: weather\n    document: w.yaml\n    auth: " + key + "\n",
		"apis:\n  - name: weather\n    document: w.yaml\n    auth: {query: appid, env: [" + key + "]}\n",
		"apis:\n  - name: weather\n    document: w.yaml\n    auth: {query: appid, env: WEATHER_KEY, key: " + key + "}\n",
	} {
		vars := minimal()
		vars["RYO_APIS"] = writeAPIs(t, text)
		vars["WEATHER_KEY"] = weatherKey
		_, err := LoadConfig(func(k string) (string, bool) { v, ok := vars[k]; return v, ok }, true)
		if err == nil {
			t.Fatalf("accepted:\n%s", text)
		}
		if strings.Contains(err.Error(), key[:12]) || strings.Contains(err.Error(), "AKIAIOSFODNN7") {
			t.Errorf("the error quotes the key: %v", err)
		}
	}
}
