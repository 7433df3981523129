// Package knowledge turns the documents admins add to the knowledge base
// into chunks the store keeps and knowledge_search finds.
//
// A document arrives as text — plain, Markdown, or HTML made Markdown-like
// — and Split cuts it along its headings first: every chunk lies under one
// path of headings ("Install › Docker"), which it keeps, so that a found
// passage says where in the document it is. Inside a section the
// paragraphs are packed into chunks of at most MaxChunk characters; a
// paragraph longer than that is cut at the end of a sentence, else between
// words, and only as a last resort inside a word — never inside a
// character. Fenced code blocks are one paragraph, and a "#" inside one is
// no heading.
//
// A document is whoever wrote it: Text reads UTF-16 and Latin-1 files as
// their words, Split drops the characters that hide text from the admin
// but not from the model and cuts headings at MaxHeading characters, and
// Name keeps a document's name in one Unicode form, plainly visible.
//
// Everything here is a pure function of its input: reading the file or the
// page, embedding the chunks and storing them are the callers' part.
package knowledge
