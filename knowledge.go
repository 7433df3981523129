package ryo

import "time"

// Document is one document of the knowledge base: a file or a page an
// admin added, split into chunks.
type Document struct {
	ID      int64
	Chat    int64 // the group it is for; 0: every conversation (global)
	Name    string
	Title   string
	Source  string // the file's name or the page's URL
	AddedBy int64
	// AddedByName is who added it, as lists show it ("" when unknown).
	AddedByName string
	AddedAt     time.Time
	Bytes       int64
	Chunks      int
	// Message is the stored message a person sent the document with, as
	// a file for the bot to read: then it is that chat's alone, and goes
	// with the message. 0 for the knowledge base's documents.
	Message int64
}

// Global reports whether d is for every conversation.
func (d Document) Global() bool { return d.Chat == 0 }

// Chunk is one passage of a document, under the path of headings above
// it.
type Chunk struct {
	Ord       int
	Heading   string // "Install › Docker"; "" before the first heading
	Text      string
	Embedding []float32 // nil without an embedding model
}

// Passage is a chunk found by a knowledge search, with its document.
type Passage struct {
	Chunk
	Document Document
	Score    float64
}
