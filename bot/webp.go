package bot

import (
	"encoding/binary"
	"fmt"
)

// webpFrames checks the frames of a WebP with an extended header (VP8X):
// that header names the canvas, which is all a header check reads, but a
// decoder allocates for each frame as its own header names it. A frame
// larger than the canvas is a pixel bomb behind a small canvas.
func webpFrames(data []byte, canvasW, canvasH int) error {
	if len(data) < 12 {
		return nil
	}
	for rest := data[12:]; len(rest) >= 8; {
		fourCC, n := string(rest[:4]), int64(binary.LittleEndian.Uint32(rest[4:8]))
		rest = rest[8:]
		if n > int64(len(rest)) {
			n = int64(len(rest))
		}
		w, h, ok := webpFrameSize(fourCC, rest[:n])
		if ok && (w > canvasW || h > canvasH) {
			return fmt.Errorf("%w: a webp frame of %d×%d on a canvas of %d×%d", errPixelBomb, w, h, canvasW, canvasH)
		}
		rest = rest[min(n+n&1, int64(len(rest))):]
	}
	return nil
}

// webpFrameSize is the size a WebP chunk's own header gives its frame:
// a lossy frame (VP8), a lossless one (VP8L), or an animation's (ANMF).
func webpFrameSize(fourCC string, c []byte) (w, h int, ok bool) {
	le24 := func(b []byte) int { return int(b[0]) | int(b[1])<<8 | int(b[2])<<16 }
	switch {
	case fourCC == "VP8 " && len(c) >= 10:
		return int(binary.LittleEndian.Uint16(c[6:]) & 0x3fff), int(binary.LittleEndian.Uint16(c[8:]) & 0x3fff), true
	case fourCC == "VP8L" && len(c) >= 5:
		bits := binary.LittleEndian.Uint32(c[1:])
		return int(bits&0x3fff) + 1, int(bits>>14&0x3fff) + 1, true
	case fourCC == "ANMF" && len(c) >= 12:
		return le24(c[6:]) + 1, le24(c[9:]) + 1, true
	}
	return 0, 0, false
}
