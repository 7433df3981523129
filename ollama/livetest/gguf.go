package livetest

import (
	"bufio"
	"encoding/binary"
	"fmt"
)

// GGUF value types and the alignment of tensor data.
const (
	ggufUint32  = 4
	ggufInt32   = 5
	ggufFloat32 = 6
	ggufBool    = 7
	ggufString  = 8
	ggufArray   = 9
	ggufF32     = 0 // tensor type
	ggufAlign   = 32
)

// ggufWriter writes a GGUF v3 file, keeping the first error.
type ggufWriter struct {
	w     *bufio.Writer
	err   error
	wrote uint64
}

func (g *ggufWriter) put(v any) {
	if g.err == nil {
		g.err = binary.Write(g.w, binary.LittleEndian, v)
		g.wrote += uint64(binary.Size(v))
	}
}

func (g *ggufWriter) str(s string) {
	g.put(uint64(len(s)))
	if g.err == nil {
		_, g.err = g.w.WriteString(s)
		g.wrote += uint64(len(s))
	}
}

func (g *ggufWriter) pad() {
	for g.wrote%ggufAlign != 0 {
		g.put(uint8(0))
	}
}

// file writes the header, the metadata, the tensor index and the tensor data.
func (g *ggufWriter) file(meta []kv, ts []tensor) {
	g.put([]byte("GGUF"))
	g.put(uint32(3))
	g.put(uint64(len(ts)))
	g.put(uint64(len(meta)))
	for _, m := range meta {
		g.str(m.key)
		g.value(m.val)
	}
	var offset uint64
	for _, t := range ts {
		g.str(t.name)
		g.put(uint32(len(t.dims)))
		g.put(t.dims)
		g.put(uint32(ggufF32))
		g.put(offset)
		offset += padded(uint64(len(t.data)) * 4)
	}
	g.pad()
	for _, t := range ts {
		g.put(t.data)
		g.pad()
	}
}

func padded(n uint64) uint64 { return (n + ggufAlign - 1) / ggufAlign * ggufAlign }

func (g *ggufWriter) value(v any) {
	switch v := v.(type) {
	case uint32:
		g.put(uint32(ggufUint32))
		g.put(v)
	case float32:
		g.put(uint32(ggufFloat32))
		g.put(v)
	case bool:
		g.put(uint32(ggufBool))
		g.put(v)
	case string:
		g.put(uint32(ggufString))
		g.str(v)
	case []string:
		g.put(uint32(ggufArray))
		g.put(uint32(ggufString))
		g.put(uint64(len(v)))
		for _, s := range v {
			g.str(s)
		}
	case []int32:
		g.put(uint32(ggufArray))
		g.put(uint32(ggufInt32))
		g.put(uint64(len(v)))
		g.put(v)
	default:
		g.err = fmt.Errorf("gguf: unsupported value %T", v)
	}
}
