package ryo

import "log/slog"

// Secret is a string that never prints itself: not through fmt, not through
// slog, not through JSON. Reveal returns the value for the one place that needs
// it.
type Secret string

// Reveal returns the secret value.
func (s Secret) Reveal() string { return string(s) }

func (s Secret) String() string { return "[redacted]" }

// GoString keeps %#v from printing the value.
func (s Secret) GoString() string { return "[redacted]" }

// LogValue keeps slog from printing the value.
func (s Secret) LogValue() slog.Value { return slog.StringValue("[redacted]") }

// MarshalText keeps encoders from printing the value.
func (s Secret) MarshalText() ([]byte, error) { return []byte("[redacted]"), nil }
