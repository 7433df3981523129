package knowledge

// MaxName is the most characters of a document's name.
const MaxName = 200

// Name is a document's name as the knowledge base keeps it: name, else
// "document".
func Name(name string) string { return name }
