package ryo

import (
	"fmt"
	"strings"
)

// Attachment is a file a tool made for the person, such as a chart: it is
// stored with the tool's result and delivered with the turn's answer. The
// model is told about it, never shown its bytes.
type Attachment struct {
	Name     string // a file name, such as "chart.png"
	MimeType string // such as "image/png"
	Caption  string // plain text shown with it; "" for none
	Data     []byte
}

// Bounds of an attachment: Telegram's own for a photo and a caption.
const (
	MaxAttachmentBytes   = 10 << 20 // a photo Telegram takes; a larger file could only be a document
	MaxAttachmentCaption = 1024     // characters
	MaxAttachmentName    = 64       // characters
)

// Telegram's bounds on a photo's sides: together at most 10,000 pixels,
// the longer at most 20 times the shorter.
const (
	MaxPhotoSides = 10000
	MaxPhotoRatio = 20
)

// PhotoFits reports whether Telegram shows a picture of width×height
// pixels as a photo.
func PhotoFits(width, height int) bool {
	return width > 0 && height > 0 && width+height <= MaxPhotoSides &&
		width <= height*MaxPhotoRatio && height <= width*MaxPhotoRatio
}

// IsPicture reports whether a is an image Telegram shows as a photo.
func (a Attachment) IsPicture() bool {
	switch a.MimeType {
	case "image/png", "image/jpeg", "image/webp":
		return true
	}
	return false
}

// Check reports what is wrong with a, or nil: an attachment has a name, a
// type and bytes, within the bounds above.
func (a Attachment) Check() error {
	switch {
	case a.Name == "" || len([]rune(a.Name)) > MaxAttachmentName || strings.ContainsAny(a.Name, "/\\\x00"):
		return fmt.Errorf("attachment name %q: want 1 to %d characters, no slashes", a.Name, MaxAttachmentName)
	case !strings.Contains(a.MimeType, "/"):
		return fmt.Errorf("attachment %q: mime type %q is not one", a.Name, a.MimeType)
	case len(a.Data) == 0:
		return fmt.Errorf("attachment %q is empty", a.Name)
	case len(a.Data) > MaxAttachmentBytes:
		return fmt.Errorf("attachment %q has %d bytes, more than %d", a.Name, len(a.Data), MaxAttachmentBytes)
	case len([]rune(a.Caption)) > MaxAttachmentCaption:
		return fmt.Errorf("attachment %q: the caption has more than %d characters", a.Name, MaxAttachmentCaption)
	}
	return nil
}
